"""The analysis end to end: schema, facts, engines, verdicts, explain, annotate, training step."""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest

from aliaslog.cli import main
from aliaslog.engines import solve
from aliaslog.relay.analysis import analyze
from aliaslog.relay.annotate import annotated_text, annotation_document
from aliaslog.relay.dce import relay_dce as dce
from aliaslog.relay.scenario import count_lets
from datalog_rules import MAIN, RULES_DIR
from extractor.facts import FactSet
from extractor.relay import ast as A
from extractor.relay.interpreter import evaluate, flatten_value, random_inputs
from extractor.relay.parser import parse, parse_file
from extractor.relay.transforms.gradient import gradient_module
from extractor.relay.transforms.training import training_step
from extractor.relay.typeinfer import infer_types
from extractor.relay_facts import ExtractError, extract_relay, load_op_effects
from extractor.schema import EFFECT_CLASSES, EFFECT_KINDS, EFFECTS, souffle_decls
from extractor.tsv import escape_symbol, unescape_symbol
from tests.support.options import EMBEDDED, FLOW_SENSITIVE
from tests.support.paths import DATA

SOUFFLE = shutil.which("souffle")
needs_souffle = pytest.mark.skipif(SOUFFLE is None, reason="souffle is not on PATH")


def _seed_grad():
    return gradient_module(infer_types(parse_file(DATA / "seed_issue_program.relay")).module)


def _training():
    seed = infer_types(parse_file(DATA / "seed_issue_program.relay")).module
    return training_step(seed, [2, 3])


def _same_outputs(a: A.Module, b: A.Module, seed: int = 0) -> bool:
    args = random_inputs(a.functions["main"], seed)
    xs, ys = flatten_value(evaluate(a, args)), flatten_value(evaluate(b, args))
    return len(xs) == len(ys) and all(np.array_equal(x, y) for x, y in zip(xs, ys, strict=True))


# ----------------------------------------------------------------------------- schema & facts


def test_schema_dl_is_generated_from_the_schema_table():
    assert (RULES_DIR / "schema.dl").read_text() == souffle_decls()


def test_every_rule_file_opens_with_what_it_derives():
    for path in sorted(RULES_DIR.glob("*.dl")):
        first = path.read_text().splitlines()[0]
        assert first.startswith("//"), path.name
        if path.name not in ("main.dl", "relax.dl", "schema.dl"):
            assert "Derives:" in path.read_text(), path.name


def test_rules_join_on_effect_classes_not_on_chains_of_kinds():
    """A new effect kind lands in a class in the schema; no rule lists kinds it is not."""
    for path in sorted(RULES_DIR.glob("*.dl")):
        text = path.read_text()
        for kind in EFFECTS:
            assert f'!= "{kind}"' not in text, f"{path.name} compares an effect with {kind}"
    classes = {c for _, cs, _ in EFFECT_KINDS for c in cs}
    assert classes == set(EFFECT_CLASSES)
    rows = FactSet().rows["effect_class"]
    assert {k for k, _ in rows} == set(EFFECTS) - {"none"}
    assert ("unknown", "opaque") in rows and ("view", "memory") in rows


def test_facts_are_deterministic(tmp_path):
    a = extract_relay(_seed_grad())
    b = extract_relay(_seed_grad())
    a.facts.write(tmp_path / "a")
    b.facts.write(tmp_path / "b")
    for f in sorted((tmp_path / "a").iterdir()):
        assert f.read_bytes() == (tmp_path / "b" / f.name).read_bytes(), f.name
    assert a.facts.digest() == b.facts.digest()


@pytest.mark.parametrize("s", ["plain", "tab\there", "new\nline", "cr\rx", "back\\slash",
                               'quote"d', "ünïcödé ✓", "\\t literal"])
def test_symbol_escaping_round_trips(s):
    esc = escape_symbol(s)
    assert "\t" not in esc and "\n" not in esc and "\r" not in esc
    assert unescape_symbol(esc) == s


def test_fact_files_round_trip_awkward_symbols(tmp_path):
    facts = FactSet()
    names = ["tab\there", "new\nline", "back\\slash", 'q"uote', "ünï ✓", "plain"]
    for i, name in enumerate(names):
        facts.add("node", name, "var", f"f{i}")
    facts.add("param", "f", 3, "v\tw")
    facts.write(tmp_path)
    for rel in ("node", "param"):
        lines = (tmp_path / f"{rel}.facts").read_text(encoding="utf-8").splitlines()
        back = [tuple(unescape_symbol(c) for c in line.split("\t")) for line in lines]
        want = [tuple(str(v) for v in row) for row in facts.rows[rel]]
        assert back == want


def test_fact_writer_checks_rows_against_the_schema(tmp_path):
    facts = FactSet()
    facts.add("node", "n1", "var")
    with pytest.raises(ValueError, match="takes 3 columns"):
        facts.write(tmp_path)
    facts = FactSet()
    facts.add("param", "f", 0, "v")
    facts.add("param", "f", "zero", "v")
    with pytest.raises(ValueError, match="number.*'zero'"):
        facts.count()


def test_a_row_added_twice_is_written_and_counted_once(tmp_path):
    facts = FactSet()
    for row in [("a", 0, "x"), ("b", 1, "y"), ("a", 0, "x"), ("c", 2, "z")]:
        facts.add("param", *row)
    facts.seal()
    assert facts.unique("param") == [("a", 0, "x"), ("b", 1, "y"), ("c", 2, "z")]
    assert facts.count() == 3 + len(facts.rows["effect_class"])
    facts.write(tmp_path)
    assert (tmp_path / "param.facts").read_text() == "a\t0\tx\nb\t1\ty\nc\t2\tz\n"
    with pytest.raises(ValueError, match="sealed"):
        facts.add("param", "d", 3, "w")


def test_bad_op_effect_table_is_located(tmp_path):
    bad = tmp_path / "effects.tsv"
    bad.write_text("nn.dense\tnone\nmy.op\tsometimes\n")
    with pytest.raises(ExtractError) as err:
        load_op_effects(bad)
    assert err.value.span.line == 2 and "effect one of" in err.value.render()


def test_user_effect_table_changes_the_verdict(tmp_path):
    mod = parse('#[version = "0.0.5"]\ndef @main(%x: float32) {\n'
                '  let %dead = exp(%x);\n  %x\n}\n')
    assert analyze(mod, engine=EMBEDDED).removable()
    table = tmp_path / "effects.tsv"
    table.write_text("exp\tio\n")
    result = analyze(mod, engine=EMBEDDED, op_effects=[str(table)])
    assert not result.removable()
    assert result.reasons_for(result.kept()[0])[0].reason == "effect"


# ------------------------------------------------------------------------------- the engines


@needs_souffle
def test_souffle_runs_the_rules_as_they_are(tmp_path):
    extract_relay(_seed_grad()).facts.write(tmp_path / "facts")
    (tmp_path / "out").mkdir()
    proc = subprocess.run(
        [SOUFFLE, "-F", str(tmp_path / "facts"), "-D", str(tmp_path / "out"), str(MAIN)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out" / "kept.csv").read_text().count("\n") == 132


def _programs():
    progs = {"seed-gradient": _seed_grad(), "training-step": _training()}
    for path in sorted((DATA / "analysis").glob("*.relay")):
        text = path.read_text()
        if "// transform:" not in text:
            progs[path.stem] = parse(text, source_name=str(path))
    return progs


@needs_souffle
@pytest.mark.parametrize("flow", [False, True], ids=["insensitive", "flow-sensitive"])
def test_both_engines_give_identical_relations(tmp_path, flow):
    for name, mod in _programs().items():
        facts = tmp_path / name
        extract_relay(mod).facts.write(facts)
        defines = {"FLOW_SENSITIVE": "1"} if flow else None
        a = solve(MAIN, facts, engine="souffle", defines=defines)
        b = solve(MAIN, facts, engine="embedded", defines=defines)
        assert a.relations == b.relations, name


def test_engine_choice_is_reported():
    assert analyze(parse(_SIMPLE), engine=EMBEDDED).engine == "embedded"


# -------------------------------------------------------------------------------- verdicts

_SIMPLE = """#[version = "0.0.5"]
def @main(%x: float32) -> float32 {
  let %r = ref(%x);
  let %dead_write = ref_write(%r, 2f);
  let %live = ref(%x);
  let %w = ref_write(%live, add(%x, 1f));
  let %unused = multiply(%x, %x);
  ref_read(%live)
}
"""


def _names(lets):
    return sorted(let.var.name_hint for let in lets)


def test_dead_writes_and_pure_lets_are_removable_live_ones_kept():
    result = analyze(parse(_SIMPLE), engine=EMBEDDED)
    assert _names(result.removable()) == ["dead_write", "r", "unused"]
    assert _names(result.kept()) == ["live", "w"]
    reasons = {let.var.name_hint: result.reasons_for(let)[0].reason for let in result.kept()}
    assert reasons == {"live": "demanded", "w": "effect"}


def test_purity_keeps_what_analysis_removes():
    mod = parse(_SIMPLE)
    assert count_lets(dce(mod, mode="purity")) == 4  # every ref op kept
    out = dce(mod, mode="analysis", engine=EMBEDDED)
    assert count_lets(out) == 2
    assert _same_outputs(mod, out)


_OVERWRITE = """#[version = "0.0.5"]
def @main(%x: float32) -> float32 {
  let %r = ref(0f);
  let %alias = (%r,).0;
  let %w1 = ref_write(%r, exp(%x));
  let %w2 = ref_write(%r, %x);
  ref_read(%alias)
}
"""


def test_flow_sensitive_variant_removes_an_overwritten_write():
    mod = parse(_OVERWRITE)
    insensitive = analyze(mod, engine=EMBEDDED)
    assert "w1" in _names(insensitive.kept())
    flow = analyze(mod, FLOW_SENSITIVE, engine=EMBEDDED)
    assert "w1" in _names(flow.removable()) and "w2" in _names(flow.kept())
    assert _same_outputs(mod, dce(mod, mode="analysis", options=FLOW_SENSITIVE, engine=EMBEDDED))


def test_seed_gradient_analysis_dce_is_sound_and_at_least_as_precise_as_purity():
    grad = _seed_grad()
    out = dce(grad, mode="analysis", engine=EMBEDDED)
    assert _same_outputs(grad, out)
    assert count_lets(out) <= count_lets(dce(grad, mode="purity"))


def test_training_step_removes_the_dead_gradient_cells_writes():
    mod = _training()
    purity = dce(mod, mode="purity")
    result = analyze(mod, engine=EMBEDDED)
    out = dce(mod, mode="analysis", engine=EMBEDDED)
    assert _same_outputs(mod, out, 0) and _same_outputs(mod, out, 1)
    assert count_lets(out) < count_lets(purity)
    # the cells made for the data and label gradients: ref(zeros_like(%input_0 / %output_0))
    grad_fn = mod.functions["main_grad"]
    data_cells = {
        n for n in A.post_order(grad_fn)
        if isinstance(n, A.RefCreate) and isinstance(n.value, A.Call)
        and n.value.args[0] in grad_fn.params[:2]
    }
    assert len(data_cells) == 2
    cell_ids = {result.node_id_of(c) for c in data_cells}
    assert None not in cell_ids
    removed_writes = [let for let in result.removable() if isinstance(let.value, A.RefWrite)]
    removed_reads = [let for let in result.removable() if isinstance(let.value, A.RefRead)]
    assert removed_writes and removed_reads
    for let in removed_writes:
        assert result.points_to(let.value.ref) <= cell_ids
    # every write into those two cells is gone; every other gradient cell write stays
    for let in result.kept():
        if isinstance(let.value, A.RefWrite):
            assert not (result.points_to(let.value.ref) & cell_ids)


# --------------------------------------------------------------------- explain and annotate


def test_explain_walks_to_a_root():
    result = analyze(_seed_grad(), engine=EMBEDDED)
    write = next(let for let in result.kept() if isinstance(let.value, A.RefWrite))
    lines = result.explain(write)
    assert "is kept" in lines[0]
    assert lines[-1].endswith("(the entry's result)")


def test_explain_referenced_and_removable(capsys):
    result = analyze(parse(_SIMPLE), engine=EMBEDDED)
    dead = next(let for let in result.removable() if let.var.name_hint == "unused")
    assert "removable" in result.explain(dead)[0]


def test_annotated_text_marks_every_binding_and_reparses():
    mod = parse(_SIMPLE)
    result = analyze(mod, engine=EMBEDDED)
    text = annotated_text(result)
    assert text.count("/* dead */") == 3 and text.count("/* keep:") == 2
    assert count_lets(parse(text)) == 5


def test_annotation_json_is_versioned():
    result = analyze(parse(_SIMPLE, source_name="simple.relay"), engine=EMBEDDED)
    doc = annotation_document(result, "simple.relay")
    assert doc["format"] == "aliaslog-annotations" and doc["version"] == 1
    by_name = {b["name"]: b for b in doc["bindings"]}
    assert by_name["%dead_write"]["verdict"] == "dead"
    assert by_name["%w"] == {**by_name["%w"], "verdict": "keep", "reason": "effect",
                             "function": "@main", "line": 6, "col": 3}
    json.dumps(doc)


# ------------------------------------------------------------------------------------ CLI


def test_cli_analysis_commands(tmp_path, capsys):
    src = tmp_path / "simple.relay"
    src.write_text(_SIMPLE)
    assert main(["analyze", str(src), "--json", "--engine", "embedded"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {"bindings", "kept", "removable", "engine", "seconds", "metrics"} <= set(doc)
    assert (doc["bindings"], doc["kept"], doc["removable"]) == (5, 2, 3)

    assert main(["facts", str(src), "-o", str(tmp_path / "facts")]) == 0
    # the facts are of the A-normal form the analysis runs on: the 5 lets, add(..) and
    # ref_read(..) (constants and let-body aliases, which are pure, are left unbound)
    assert (tmp_path / "facts" / "let_bind.facts").read_text().count("\n") == 7

    assert main(["explain", str(src), "%w", "--engine", "embedded"]) == 0
    assert "%w (line 6) is kept" in capsys.readouterr().out
    assert main(["explain", str(src), "%ww", "--engine", "embedded"]) == 2
    assert "did you mean %w" in capsys.readouterr().err

    out = tmp_path / "a.relay"
    assert main(["annotate", str(src), "-o", str(out), "--engine", "embedded"]) == 0
    assert "/* dead */" in out.read_text()
    assert main(["dce", str(src), "--mode", "analysis", "--engine", "embedded"]) == 0
    assert "dead_write" not in capsys.readouterr().out

    kept = tmp_path / "keep"
    assert main(["analyze", str(src), "--keep-files", str(kept), "--engine", "embedded"]) == 0
    assert (kept / "facts" / "node.facts").exists() and (kept / "out" / "kept.csv").exists()


def test_dce_read_back_has_the_same_verdicts_and_no_points_to():
    """`points_to=False` (analyze, dce, batch) reads back only what DCE needs."""
    grad = _seed_grad()
    full = analyze(grad, engine=EMBEDDED, explain=False)
    dce_only = analyze(grad, engine=EMBEDDED, explain=False, points_to=False)
    assert (dce_only.kept_ids, dce_only.removable_ids, dce_only.reasons, dce_only.metrics) == (
        full.kept_ids, full.removable_ids, full.reasons, full.metrics)
    assert "pts" not in dce_only.relations and "may_alias" not in dce_only.relations
    with pytest.raises(ValueError, match="points_to=False"):
        dce_only.may_alias_pairs()
