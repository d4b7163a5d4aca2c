"""The Relax side of the command line: check, and analyze / facts / dce on TVMScript files."""

from __future__ import annotations

import argparse
import json

from extractor.relax_load import POINTS, load_relax_module, to_point

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


def cmd_check(args: argparse.Namespace) -> int:
    """Violations of one module, or the effects a pass lost between two; exit 1 if any."""
    from .checks import check_module, compare_modules

    before = load_relax_module(args.file, args.module)
    points: dict[str, str] = {}
    if args.after:
        after = load_relax_module(args.after, args.after_module or args.module)
        findings: list = compare_modules(before, after, **_options(args))
    else:
        report = check_module(before, parse_points(args.at), **_options(args))
        findings, points = report.violations, report.points()
    errors = [f for f in findings if f.severity == "error" or args.strict]
    if args.json:
        print(json.dumps({"file": args.file, "after": args.after, "violations": len(errors),
                          "warnings": len(findings) - len(errors), "points": points,
                          "findings": [f.as_json() for f in findings]}, indent=2))
    else:
        for f in findings:
            print(f.describe() + "\n")
        for point, status in points.items():
            if status != "checked":
                print(f"note: `{point}` {status}")
        what = f"{args.file} -> {args.after}" if args.after else args.file
        n, w = len(errors), len(findings) - len(errors)
        checked = [p for p, st in points.items() if st == "checked"]
        at = f" (checked at {', '.join(checked)} only)" if len(checked) < len(points) else ""
        print(f"{what}: {n} violation{'s' * (n != 1)}, {w} warning{'s' * (w != 1)}{at}")
    return 1 if errors else 0


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


def cmd_facts(args: argparse.Namespace) -> int:
    """Write a Relax module's facts, at one extraction point, into a fresh directory."""
    from extractor.relax_facts import extract_relax, load_relax_effects, load_tir_effects

    mod = to_point(load_relax_module(args.file, args.module), args.at)
    extraction = extract_relax(mod, load_relax_effects(*args.op_effects),
                               tir_effects=load_tir_effects(*args.tir_effects))
    print(publish_facts(extraction.facts, args.output))
    return 0


def cmd_dce(args: argparse.Namespace) -> int:
    """The module after EffectAwareDCE (at an extraction point), as a loadable TVMScript file."""
    from .dce import EffectAwareDCE

    mod = to_point(load_relax_module(args.file, args.module), args.at)
    out = EffectAwareDCE(**_options(args))(mod)  # type: ignore[arg-type]
    text = SCRIPT_HEADER + out.script()
    if args.output:
        write_text_atomically(args.output, text)
    else:
        print(text)
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    """Which pass of TVM's pipeline introduced each finding; exit 1 on any error finding."""
    from .audit import audit_module
    from .audit_report import write_html
    from .confirm import confirm_report, fresh_constants

    mod = load_relax_module(args.file, args.module)
    passes = [p.strip() for p in (args.passes or "").split(",") if p.strip()]
    given = fresh_constants(mod) if args.confirm else None  # before any pass ran kernels
    report = audit_module(mod, passes, args.pipeline, args.target, **_options(args))
    if given is not None:
        confirm_report(report, given)
    if args.output:
        write_html(report, args.file, args.output)
    errors = report.errors
    if args.json:
        print(json.dumps(report.as_json(args.file), indent=2))
    else:
        for f in report.findings:
            print(f.describe())
            c = report.confirmations.get(f.ordinal) if f.severity == "error" else None
            print(f"  {c.describe()}\n" if c else "")
        if report.failed is not None:
            print(f"note: TVM's pipeline failed in {report.failed[0]}: {report.failed[1]} "
                  "(the passes after it were not audited)")
        bad = [s for s in report.steps if s.error]
        for s in bad:
            print(f"note: aliaslog could not analyse the module after {s.name}: {s.error}")
        changed = sum(s.changed for s in report.steps)
        n, w = len(errors), len(report.findings) - len(errors)
        print(f"{args.file}: {len(report.steps)} passes ({changed} changed the module), "
              f"{n} error finding{'s' * (n != 1)}, {w} warning{'s' * (w != 1)}")
    if any(s.error for s in report.steps):
        return 3
    return 1 if errors else 0
