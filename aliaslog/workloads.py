"""The workloads: what each file of a model zoo is, what batch rows and reports call it, in order.

The zoos write each model's workloads under these file suffixes (`NAME.grad.relay`,
`NAME.lowered.py`, ...), the batch reads a file's workload back from its name, and the report
groups and orders its rows by them. A new workload is one row of `WORKLOADS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

RELAY_SUFFIXES = (".relay", ".json")  # a Relay program: text, or TVM's save_json
RELAX_SUFFIXES = (".py",)  # a TVMScript file
# Loading a TVMScript file runs it, so a batch walking a directory takes only the `.py` files
# that carry this line among their leading comments (the zoos write it; a file named on the
# command line needs none): a build script, setup.py or conftest.py is never run.
MODULE_MARKER = "# aliaslog: relax-module"


@dataclass(frozen=True)
class Workload:
    """One kind of model file: its IR, the zoo's key, the batch's name, the file suffix."""

    ir: str  # "relay" | "relax"
    key: str  # the zoo's name (zoo.json `paths`); for Relax, the extraction point
    variant: str  # what a batch row (`variant`) and the report call it
    suffix: str | None  # the zoo's file name ending; None: no zoo file (a point the batch picks)
    title: str  # the report's group header

    @property
    def marked(self) -> bool:
        """The suffix names the workload (`.grad.relay`), beyond the IR's own (`.relay`)."""
        return self.suffix is not None and self.suffix.count(".") > 1

    @property
    def marker(self) -> str:
        """`.grad.` of `.grad.relay`: what a Relay file's name holds to be this workload."""
        assert self.suffix is not None
        return self.suffix[: self.suffix.rindex(".") + 1]


WORKLOADS = (  # in report order
    Workload("relay", "plain", "plain", ".relay", "Relay · plain"),
    Workload("relay", "anf", "anf", ".anf.relay", "Relay · A-normal form"),
    Workload("relay", "grad", "gradient", ".grad.relay", "Relay · after autodiff"),
    Workload("relay", "train", "training step", ".train.relay", "Relay · training steps"),
    Workload("relax", "input", "input", ".py", "Relax · input"),
    Workload("relax", "legalized", "legalized", None, "Relax · legalized"),
    Workload("relax", "lowered", "lowered", ".lowered.py", "Relax · lowered"),
)
BY_KEY = {(w.ir, w.key): w for w in WORKLOADS}


def zoo_suffix(ir: str, key: str) -> str:
    """The file name ending the zoo writes a workload under: zoo_suffix("relay", "grad")."""
    suffix = BY_KEY[(ir, key)].suffix
    assert suffix is not None, f"{ir} {key} has no zoo file"
    return suffix


def is_module_file(path: str | Path) -> bool:
    """The file's leading comment lines (before any code) include MODULE_MARKER."""
    try:
        with open(path, "rb") as f:
            for raw in f:
                line = raw.decode("utf-8", errors="replace").strip()
                if line == MODULE_MARKER:
                    return True
                if line and not line.startswith("#"):
                    return False
    except OSError:
        return False
    return False


def ir_of(path: str) -> str:
    """`relay` or `relax`, from the file name (the batch only collects these suffixes)."""
    return "relax" if path.endswith(RELAX_SUFFIXES) else "relay"


def is_lowered(path: str) -> bool:
    """A Relax zoo file already at the `lowered` extraction point."""
    return path.endswith(zoo_suffix("relax", "lowered"))


def variant_of(path: str, relax_point: str) -> str:
    """Relay: the zoo's workload its name marks (`*.grad.relay`: gradient), else plain;
    Relax: lowered for a lowered zoo file, else the extraction point it is analysed at."""
    if ir_of(path) == "relay":
        name = Path(path).name
        for w in WORKLOADS:
            if w.ir == "relay" and w.marked and w.marker in name:
                return w.variant
        return BY_KEY[("relay", "plain")].variant
    return BY_KEY[("relax", "lowered")].variant if is_lowered(path) else relax_point


def model_name(path: str) -> str:
    """The file name without IR suffix and workload marker: `resnet-18.grad.relay` -> resnet-18."""
    name = Path(path).name
    marked = tuple(w.suffix for w in WORKLOADS if w.marked)
    for suffix in (*marked, *RELAY_SUFFIXES, *RELAX_SUFFIXES):  # type: ignore[misc]
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


IR_ORDER = {ir: i for i, ir in enumerate(dict.fromkeys(w.ir for w in WORKLOADS))}
VARIANT_ORDER = {w.variant: i for i, w in enumerate(WORKLOADS)}
GROUP_TITLES = {(w.ir, w.variant): w.title for w in WORKLOADS}
