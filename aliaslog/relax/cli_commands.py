"""The Relax side of the command line: check, and analyze / facts / dce on TVMScript files."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from extractor.relax_load import POINTS, load_relax_module, point_passes, to_point

from ..loading import UsageError, publish_facts, write_text_atomically
from ..options import EngineOptions

SCRIPT_HEADER = ("from tvm.script import ir as I\nfrom tvm.script import relax as R\n"
                 "from tvm.script import tirx as T\n\n")


def parse_points(text: str) -> tuple[str, ...]:
    """`input,legalized` -> the extraction points, each checked."""
    points = tuple(p.strip() for p in text.split(",") if p.strip())
    bad = [p for p in points if p not in POINTS]
    if bad or not points:
        raise UsageError(f"--at: unknown extraction point {', '.join(bad) or '(none)'}; "
                         f"choose from {', '.join(POINTS)}")
    return points


def _options(args: argparse.Namespace) -> dict[str, object]:
    return {"engine": EngineOptions.from_args(args), "op_effects": args.op_effects,
            "tir_effects": args.tir_effects}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("aliaslog")
    except PackageNotFoundError:
        return "0"


def _ci_options(args: argparse.Namespace, mod: Any) -> dict[str, object]:
    """The analysis options plus the entry parameters declared mutable state and the entry
    functions declared to run once (checked against the module before anything runs)."""
    from extractor.relax_facts import check_once, check_param_modes

    modes = {pair: "mutable" for pair in parse_params(args.mutable, "--mutable")}
    check_param_modes(mod, modes)
    once = frozenset(n for n in args.once.split(",") if n)
    check_once(mod, once)
    return {**_options(args), **({"param_modes": modes} if modes else {}),
            **({"once": once} if once else {})}


def _report(args: argparse.Namespace, findings: list, notes: list[str], as_json: dict,
            fails: Callable[[Any], bool], more: Callable[[Any], str] = lambda f: "",
            scope: str = "", head: str = "", label: str | None = None) -> int:
    """Print the findings (text, json or sarif) against a baseline, write one if asked; exit 1
    if a finding that `fails` says counts is new. `more`: text under a finding; `head`: what
    the summary line says first; `scope`: what the verdict covers, when less than asked."""
    from .baseline import load_baseline, split, write_baseline
    from .sarif import sarif_log

    known = load_baseline(args.baseline) if args.baseline else None
    new, old = split(findings, known) if known is not None else (findings, [])
    failing = [f for f in new if fails(f)]
    if args.write_baseline:
        write_baseline(args.write_baseline, findings)
    if args.format == "sarif":
        print(json.dumps(sarif_log(findings, args.file, version=_version(), notes=notes,
                                   known=known), indent=2))
    elif args.format == "json":
        as_json["baseline"] = None if known is None else {
            "file": args.baseline, "known": len(old), "new": len(new)}
        print(json.dumps(as_json, indent=2))
    else:
        for f in findings:
            mark = "  (known: in the baseline)" if f in old else ""
            print(f.describe() + mark + more(f) + "\n")
        for n in notes:
            print(f"note: {n}")
        errors = sum(f.severity == "error" for f in findings)
        line = (f"{label or args.file}: {head}{_count(errors, 'error')}, "
                f"{_count(len(findings) - errors, 'warning')}{scope}")
        if known is not None:
            line += f"; {len(old)} known from {args.baseline}, {len(new)} new"
        if getattr(args, "strict", False):
            line += " (--strict: warnings fail too)"
        print(line)
    if args.write_baseline:
        print(f"wrote {len(findings)} finding(s) to {args.write_baseline}", file=sys.stderr)
    return 1 if failing else 0


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' * (n != 1)}"


def cmd_check(args: argparse.Namespace) -> int:
    """Violations of one module, or the effects a pass lost between two; exit 1 if any error
    (or, with --strict, any warning) is not in the baseline."""
    from .checks import check_module, compare_modules

    before = load_relax_module(args.file, args.module)
    points: dict[str, str] = {}
    if args.after:
        after = load_relax_module(args.after, args.after_module or args.module,
                                  flag="--after-module")
        findings: list = compare_modules(before, after, **_ci_options(args, before))
    else:
        report = check_module(before, parse_points(args.at), save_points=args.save_points,
                              **_ci_options(args, before))
        findings, points = report.violations, report.points()
    notes = [f"`{p}` {st}" for p, st in points.items() if st != "checked"]
    def fails(f: Any) -> bool:
        return f.severity == "error" or args.strict

    doc = {"file": args.file, "after": args.after, "points": points,
           "errors": sum(f.severity == "error" for f in findings),
           "warnings": sum(f.severity != "error" for f in findings),
           "failing": sum(map(fails, findings)),  # what the exit status counts (before a baseline)
           "findings": [f.as_json() for f in findings]}
    checked = [p for p, st in points.items() if st == "checked"]
    scope = f" (checked at {', '.join(checked)} only)" if len(checked) < len(points) else ""
    label = f"{args.file} -> {args.after}" if args.after else args.file
    return _report(args, findings, notes, doc, fails, scope=scope, label=label)


def cmd_analyze(args: argparse.Namespace) -> int:
    """Counts, metrics and violations of a Relax module at one extraction point."""
    from ..analyze_report import AnalyzeSummary, RemovableBinding
    from .analysis import analyze_relax

    mod = load_relax_module(args.file, args.module)
    res = analyze_relax(mod, point=args.at, keep_files=args.keep_files, **_options(args))
    removable = []
    for bid in res.binding_ids():
        if bid in res.removable_ids:
            place = res.place(bid)
            removable.append(RemovableBinding(place.name, f"@{place.function}", place.line,
                                              in_script=place.source == "script"))
    summary = AnalyzeSummary(
        file=args.file, ir="relax", engine=res.engine, timings=res.timings,
        bindings=len(res.kept_ids) + len(res.removable_ids), removable=removable,
        metrics=res.metrics, label=f"at {args.at}", context={"point": args.at},
        metrics_heading=f"metrics (of the module at extraction point {args.at}):",
        violations=[v.describe() for v in res.violations()])
    print(summary.as_json() if args.json else summary.as_text())
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    """Why a Relax binding is kept, and the chain behind each finding that names it (at one
    extraction point; later points name the module as given's bindings where they survive)."""
    from .analysis import READ_BACK, analyze_relax
    from .checks import relocator
    from .explain import EXPLAIN, demand_of, explain_binding, explain_finding

    mod = load_relax_module(args.file, args.module)
    options = _ci_options(args, mod)
    res = analyze_relax(mod, point=args.at, read_back=READ_BACK | EXPLAIN, **options)
    fn, _, name = args.binding.rpartition(":")
    fn, name = fn.removeprefix("@"), name.removeprefix("%")
    hits = [b for b in res.binding_ids()
            if res.place(b).name == name and (not fn or res.place(b).function == fn)]
    if not hits:
        import difflib

        names = sorted({res.place(b).name for b in res.binding_ids()})
        close = difflib.get_close_matches(name, names, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UsageError(f"{args.file}: no binding named `{args.binding}` at {args.at}{hint}")
    if args.at != "input":
        first = analyze_relax(mod, point="input", **options)
        given = {(p.function, p.name): p for p in map(first.place, first.binding_ids())}
        res.relocate_places(relocator(given, res, args.save_points))
    demand = demand_of(res)
    for bid in hits:
        print("\n".join(explain_binding(res, bid, demand)))
        for v in res.violations():
            if bid in (v.site_id, v.var_id):
                print()
                lines = explain_finding(res, v, demand)
                lines[0] += f"   [at {args.at}]"
                print("\n".join(lines))
    return 0


def cmd_facts(args: argparse.Namespace) -> int:
    """Write a Relax module's facts, at one extraction point, into a fresh directory."""
    from extractor.kernel_access import load_tir_effects
    from extractor.relax_facts import extract_relax, load_relax_effects

    mod = to_point(load_relax_module(args.file, args.module), args.at)
    extraction = extract_relax(mod, load_relax_effects(*args.op_effects),
                               tir_effects=load_tir_effects(*args.tir_effects),
                               after=frozenset(point_passes(args.at)))
    print(publish_facts(extraction.facts, args.output))
    return 0


def cmd_dce(args: argparse.Namespace) -> int:
    """The module after EffectAwareDCE (at an extraction point), as a loadable TVMScript file;
    what it removed goes to stderr."""
    from .dce import effect_aware_dce

    mod = to_point(load_relax_module(args.file, args.module), args.at)
    out, gone = effect_aware_dce(mod, **_options(args))
    text = SCRIPT_HEADER + out.script()
    if args.output:
        write_text_atomically(args.output, text)
    else:
        print(text)
    names = ", ".join(f"`{p.name}` in @{p.function}" for p in gone)
    print(f"dce (EffectAwareDCE, at {args.at}): removed {_count(len(gone), 'binding')}"
          + (f": {names}" if gone else ""), file=sys.stderr)
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    """Which pass of TVM's pipeline introduced each finding. Exit 1 on an error finding not in
    the baseline; 2 when TVM's pipeline failed before its end (a partial audit); 3 when
    aliaslog could not analyse the module a pass left."""
    from .audit import audit_module
    from .audit_report import write_html
    from .confirm import confirm_report, fresh_constants

    mod = load_relax_module(args.file, args.module)
    passes = [p.strip() for p in (args.passes or "").split(",") if p.strip()]
    given = fresh_constants(mod) if args.confirm else None  # before any pass ran kernels
    report = audit_module(mod, passes, args.pipeline, args.target, **_ci_options(args, mod))
    if given is not None:
        confirm_report(report, given)
    if args.output:
        write_html(report, args.file, args.output)
    notes = []
    if report.failed is not None:
        notes.append(f"TVM's pipeline failed in {report.failed[0]}: {report.failed[1]} "
                     "(the passes after it were not audited)")
    notes += [f"aliaslog could not analyse the module after {s.name}: {s.error}"
              for s in report.steps if s.error]
    def confirmed(f: object) -> str:
        c = report.confirmations.get(f.ordinal) if f.severity == "error" else None  # type: ignore[attr-defined]
        return f"\n  {c.describe()}" if c else ""

    changed = sum(s.changed for s in report.steps)
    status = _report(args, report.findings, notes, report.as_json(args.file),
                     lambda f: f.severity == "error", confirmed,
                     head=f"{len(report.steps)} passes ({changed} changed the module), ")
    if any(s.error for s in report.steps):
        return 3
    if report.failed is not None:
        return max(status, 2)
    return status


def parse_params(text: str, flag: str) -> list[tuple[str, str]]:
    """`main:x,main:y` -> [("main", "x"), ("main", "y")] (for --donate and --mutable)."""
    out = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        fn, sep, param = item.partition(":")
        if not sep or not fn or not param:
            raise UsageError(f"{flag}: expected FUNC:PARAM (e.g. main:x), got `{item}`")
        out.append((fn.removeprefix("@"), param))
    return out


def cmd_inplace(args: argparse.Namespace) -> int:
    """VerifiedInplace on a module (after legalization, or after the zero pipeline): the
    rewritten module as TVMScript, what was made in place and what was refused, and the memory
    figures beside TVM's own DataflowUseInplaceCalls."""
    from .memory_report import memory_report

    mod = load_relax_module(args.file, args.module)
    memory = memory_report(mod, first=args.pipeline, donate=parse_params(args.donate, "--donate"),
                           target=args.target, **_options(args))
    report = memory.inplace
    if args.output:
        write_text_atomically(args.output, SCRIPT_HEADER + report.module.script())
    if args.json:
        print(json.dumps({"file": args.file, "pipeline": args.pipeline, **report.as_json(),
                          "memory": memory.as_json()}, indent=2))
        return 0
    for r in report.rewrites:
        print(f"in place  `{r.binding}` in @{r.function} ({r.kernel}) writes "
              f"{', '.join(r.inputs)}")
    for r in report.refused:
        print(f"refused   `{r.binding}` in @{r.function} ({r.kernel}): {r.reason}")
    print()
    print(memory.as_text())
    n = len(report.rewrites)
    print(f"\n{args.file}: {n} in-place call{'s' * (n != 1)}, {len(report.refused)} refused"
          + (f"; written to {args.output}" if args.output else ""))
    return 0


def cmd_memory(args: argparse.Namespace) -> int:
    """Planned and peak storage of a module's functions, with and without in-place calls."""
    from .memory_report import memory_report

    mod = load_relax_module(args.file, args.module)
    report = memory_report(mod, first=args.pipeline, donate=parse_params(args.donate, "--donate"),
                           target=args.target, **_options(args))
    if args.json:
        print(json.dumps({"file": args.file, "variants": report.as_json()}, indent=2))
    else:
        print(report.as_text())
    return 0
