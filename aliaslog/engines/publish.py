"""Publish a directory atomically: readers see the old files or the new, never a mix, and on
Linux the target path never stops existing while it is replaced.

`publish_dir(target, fill, owned_suffix=...)` makes a fresh directory beside the target (same
file system), lets `fill` write into it, and swaps it in:

- target absent: one `rename` (atomic).
- target present, Linux: `renameat2(RENAME_EXCHANGE)` swaps the two directories in one step,
  so there is no moment without a target; the old contents are then deleted.
- elsewhere (or a file system without exchange): the old directory is renamed aside, the new
  one renamed in, the old deleted; between those two renames the path is briefly absent.

A target that exists is replaced only if it is a directory holding nothing but files ending in
`owned_suffix` (a publisher never deletes files it did not write). If `fill` raises, the
target is untouched and the staging directory is removed.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import sys
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def check_replaceable(target: Path, owned_suffix: str) -> None:
    """Raise FileExistsError unless target is absent or a directory of `*owned_suffix` files."""
    target = Path(target)
    if not target.exists():
        return
    if not target.is_dir():
        raise FileExistsError(f"{target} exists and is not a directory")
    foreign = sorted(p.name for p in target.iterdir()
                     if not (p.is_file() and p.name.endswith(owned_suffix)))
    if foreign:
        raise FileExistsError(
            f"{target} holds files other than *{owned_suffix} ({', '.join(foreign[:3])});"
            " refusing to replace it")


def publish_dir(target: str | os.PathLike[str], fill: Callable[[Path], object], *,
                owned_suffix: str) -> Path:
    """Fill a fresh directory beside target, then swap it into place; returns the target."""
    target = Path(target)
    check_replaceable(target, owned_suffix)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        os.chmod(staging, _plain_dir_mode())  # mkdtemp makes 0700; outputs are ordinary dirs
        fill(staging)
        if not target.exists():
            os.rename(staging, target)
        elif not _exchange(staging, target):
            old = target.parent / f".{target.name}.old-{uuid.uuid4().hex[:8]}"
            os.rename(target, old)
            try:
                os.rename(staging, target)
            except OSError:
                os.rename(old, target)
                raise
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if staging.exists():  # after an exchange it holds the old contents
            shutil.rmtree(staging, ignore_errors=True)
    return target


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2); False where the system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _plain_dir_mode() -> int:
    """The permissions `mkdir` gives a new directory under the current umask."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o777 & ~umask
