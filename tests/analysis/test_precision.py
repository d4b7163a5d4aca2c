"""`aliaslog precision` and the dynamic oracle behind it."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET

import pytest

from aliaslog.cli import main
from aliaslog.options import AnalysisOptions, EngineOptions
from aliaslog.relay.analysis import analyze
from aliaslog.relay.oracle import observe, unsound_findings
from aliaslog.relay.precision import measure
from extractor.relay.parser import parse_file
from extractor.relay.typeinfer import infer_types
from tests.support.options import EMBEDDED
from tests.support.paths import DATA

PRECISION = DATA / "precision"


def test_precision_command_writes_table_csv_json_and_svg(tmp_path, capsys):
    rc = main(["precision", str(PRECISION), "--variants", "insensitive,1-call,1-closure+fs",
               "--engine", "embedded", "--out", str(tmp_path)])
    assert rc == 0
    out = capsys.readouterr().out
    assert out.count("\n| ") == 3 and "oracle precision" in out  # header + 3 variants
    doc = json.loads((tmp_path / "precision.json").read_text())
    by = {row["variant"]: row for row in doc["variants"]}
    assert list(by) == ["insensitive", "1-call", "1-closure+fs"]
    assert all(row["unsound"] == 0 for row in by.values())
    assert by["1-call"]["removable"] > by["insensitive"]["removable"]
    assert by["1-call"]["oracle_precision"] > by["insensitive"]["oracle_precision"]
    with open(tmp_path / "precision.csv") as fh:
        assert len(list(csv.DictReader(fh))) == 3 * len(list(PRECISION.glob("*.relay")))
    ET.parse(tmp_path / "precision.svg")  # well-formed, standalone


def test_bad_variant_and_empty_input_are_clear_errors(tmp_path, capsys):
    assert main(["precision", str(PRECISION), "--variants", "3-call"]) == 2
    assert "unknown variant `3-call`" in capsys.readouterr().err
    assert main(["precision", str(tmp_path)]) == 2
    assert "no .relay programs" in capsys.readouterr().err
    with pytest.raises(ValueError):
        AnalysisOptions.parse("1-call+ff")


def test_oracle_sees_aliases_the_analysis_allows():
    mod = infer_types(parse_file(PRECISION / "identity_on_two_cells.relay")).module
    res = analyze(mod, engine=EMBEDDED)
    obs = observe(res.extraction.module, (0,))
    assert obs.alias_pairs(res)  # %a and %a2 hold the same cell
    assert unsound_findings(res, obs) == []
    [row] = measure(mod, "p", (AnalysisOptions("1-call"),), (0,), EngineOptions("embedded"))
    assert row.observed_pairs <= row.static_access_pairs and not row.unsound


def test_oracle_reports_what_a_broken_analysis_would_miss():
    """The oracle can fail: drop the points-to facts and every access becomes unsound."""
    mod = infer_types(parse_file(PRECISION / "identity_on_two_cells.relay")).module
    res = analyze(mod, engine=EMBEDDED)
    res.relations["pts"] = []
    res.relations["may_alias"] = []
    findings = unsound_findings(res, observe(res.extraction.module, (0,)))
    assert any("outside its static points-to set" in f for f in findings)
    assert any("not a static may-alias pair" in f for f in findings)
