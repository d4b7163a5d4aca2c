"""The removal oracle: dynamically dead bindings, not coincidences; DCE recall against it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from aliaslog.cli import main
from aliaslog.options import AnalysisOptions, EngineOptions
from aliaslog.relay.analysis import analysis_program, analyze
from aliaslog.relay.oracle import oracle_removable, perturb, perturbation_live
from aliaslog.relay.precision import measure
from extractor.relay import ast as A
from extractor.relay.parser import parse
from extractor.relay.typeinfer import infer_types
from tests.support.options import EMBEDDED

# %z stores zeros into a cell that already holds zeros, and is read: deleting it changes no
# output, but the result depends on it. %dead is never read; %t is a tensor nobody uses.
PROGRAM = """#[version = "0.0.5"]
def @main(%x: Tensor[(3), float32]) -> Tensor[(3), float32] {
  let %r = ref(zeros_like(%x));
  let %z = ref_write(%r, zeros_like(%x));
  let %dead = ref(%x);
  let %w = ref_write(%dead, %x);
  let %t = multiply(%x, %x);
  let %v = ref_read(%r);
  add(%v, %x)
}
"""


def lets_by_name(mod: A.Module) -> dict[str, A.Let]:
    return {e.var.name_hint: e for f in mod.functions.values() for e in A.post_order(f)
            if isinstance(e, A.Let)}


def test_perturbation_sees_dependence_that_removal_misses() -> None:
    mod = analysis_program(infer_types(parse(PROGRAM)).module)
    lets = lets_by_name(mod)
    live, perturbable = perturbation_live(mod, (0, 1))
    assert {id(lets[n]) for n in ("z", "v")} <= live
    # %r's initial content is overwritten, so perturbing it changes nothing; the cell itself
    # is needed, which the removal step sees (%z and %v mention %r)
    assert id(lets["r"]) not in live
    assert not {id(lets[n]) for n in ("dead", "w", "t")} & live
    assert {id(lets[n]) for n in ("r", "z", "dead", "w", "t", "v")} <= perturbable
    removable = oracle_removable(mod, (0, 1))
    assert removable == {id(lets[n]) for n in ("dead", "w", "t")}


def test_perturb_changes_every_kind_of_tensor() -> None:
    f = np.zeros((2, 2), "float32")
    assert perturb(f).dtype == f.dtype and np.all(perturb(f) != f)
    assert len(set(perturb(np.ones(4, "float32")).tolist())) == 4  # no uniform shift
    assert perturb(np.array(3, "int32")) == 4
    assert perturb(np.array(True)) == np.array(False)
    t = perturb((f, ()))
    assert isinstance(t, tuple) and t[1] == () and np.all(t[0] != f)
    assert perturb(()) is None


def test_analysis_removes_what_the_oracle_shows_dead_here() -> None:
    mod = infer_types(parse(PROGRAM)).module
    res = analyze(mod, engine=EMBEDDED, explain=False)
    assert {id(let) for let in res.analysed_removable()} == oracle_removable(
        res.extraction.module, (0,))
    (row,) = measure(mod, "p", (AnalysisOptions(),), (0,), EngineOptions("embedded"))
    assert (row.oracle_removable, row.removed_of_oracle, row.dce_recall) == (3, 3, 1.0)


def test_zoo_relay_command(tmp_path: Path, capsys) -> None:
    assert main(["zoo", "relay", "-o", str(tmp_path), "--models", "mlp,lstm"]) == 0
    out = capsys.readouterr().out
    assert "mlp.grad.relay" in out and "mlp.train.relay" in out
    assert {"lstm.relay", "lstm.anf.relay", "mlp.relay", "mlp.anf.relay", "mlp.grad.relay",
            "mlp.train.relay", "zoo.json"} <= {p.name for p in tmp_path.iterdir()}
    assert main(["zoo", "relay", "-o", str(tmp_path), "--models", "alexnet"]) == 2
    assert "unknown model alexnet" in capsys.readouterr().err
