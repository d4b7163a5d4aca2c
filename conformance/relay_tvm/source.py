"""TVM's sources at one revision, read from a git mirror at run time (never copied)."""

from __future__ import annotations

import subprocess
from functools import cache

TESTS = "tests/python/relay"
STD = "python/tvm/relay/std"


class TvmSource:
    """`git show REV:path` and `git ls-tree` over a (bare) mirror of apache/tvm."""

    def __init__(self, mirror: str, rev: str = "v0.19.0") -> None:
        self.mirror = mirror
        self.rev = rev
        self.commit = self._git("rev-parse", "--verify", "--quiet",
                                f"refs/tags/{rev}^{{commit}}", check=False).strip() \
            or self._git("rev-parse", "--verify", f"{rev}^{{commit}}").strip()

    def _git(self, *args: str, check: bool = True) -> str:
        out = subprocess.run(["git", "-C", self.mirror, *args], capture_output=True,
                             text=True, check=False)
        if check and out.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)}: {out.stderr.strip()}")
        return out.stdout

    def files(self, prefix: str = TESTS) -> list[str]:
        """Every file under prefix at the revision."""
        return self._git("ls-tree", "-r", "--name-only", self.commit, prefix + "/").split()

    @cache  # noqa: B019 - one source object per run
    def show(self, path: str) -> str:
        """The text of path at the revision."""
        return self._git("show", f"{self.commit}:{path}")

    def std(self, name: str) -> str:
        """A file of Relay's standard library (prelude.rly, nat.rly, core.rly, gradient.rly)."""
        return self.show(f"{STD}/{name}")

    @cache  # noqa: B019
    def relay_ops(self) -> frozenset[str]:
        """The operator names v0.19 registers in C++ (`RELAY_REGISTER_*OP("name")`)."""
        out = self._git("grep", "-h", "-o", "-E", r'RELAY_REGISTER_[A-Z_]*OP\("[^"]+"',
                        self.commit, "--", "src/relay")
        return frozenset(line.split('("', 1)[1].rstrip('"') for line in out.splitlines())
