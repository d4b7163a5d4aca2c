"""User mistakes at the command line: each gets a clear error (exit 2), never a traceback, and
no partial output. Every subcommand's --help, every output flag pointed at a directory and at
an existing file, ill-typed and ill-encoded programs, the wrong IR for a command."""

from __future__ import annotations

import argparse

import pytest

from aliaslog.cli import build_parser, main
from tests.support.paths import DATA

SEED = DATA / "seed_issue_program.relay"
RELAX = DATA / "relax" / "cases" / "case02_dce_inplace_read_after.py"
ILL_TYPED = ('#[version = "0.0.5"]\ndef @main(%a: Tensor[(2), float32], %b: Tensor[(3), float32]) '
             '{\n  let %c = add(%a, %b);\n  %c\n}\n')


def subcommands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors and --help
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in err, (argv, err)
    return code, out, err


@pytest.mark.parametrize("command", sorted(subcommands()))
def test_every_subcommand_has_help(command: str, capsys) -> None:
    code, out, _ = run([command, "--help"], capsys)
    assert code == 0 and out.startswith("usage: aliaslog " + command)


def test_every_option_is_described() -> None:
    for name, parser in subcommands().items():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"aliaslog {name} {'/'.join(action.option_strings) or action.dest}"


def test_version(capsys) -> None:
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and out.startswith("aliaslog ")


OUTPUT_FLAGS = [  # (argv before the output path, flag, what the flag wants)
    (["run", str(SEED), "--random", "0"], "--save", "file"),
    (["grad", str(SEED)], "-o", "file"),
    (["anf", str(SEED)], "-o", "file"),
    (["dce", str(SEED)], "-o", "file"),
    (["annotate", str(SEED), "--engine", "embedded"], "-o", "file"),
    (["facts", str(SEED)], "-o", "dir"),
    (["analyze", str(SEED), "--engine", "embedded"], "--keep-files", "dir"),
    (["precision", str(DATA / "precision"), "--seeds", "1", "--variants", "insensitive",
      "--engine", "embedded"], "--out", "dir"),
    (["batch", str(SEED), "--engine", "embedded", "--workers", "1", "--quiet"], "--out", "dir"),
    (["zoo", "relay", "--models", "mlp", "--no-gradient"], "-o", "dir"),
]


@pytest.mark.parametrize("argv,flag,wants", OUTPUT_FLAGS, ids=[a[0] for a, _, _ in OUTPUT_FLAGS])
def test_output_flags_at_a_directory_or_an_existing_file(argv, flag, wants, tmp_path,
                                                         capsys) -> None:
    a_dir = tmp_path / "a_dir"
    a_dir.mkdir()
    a_file = tmp_path / "a_file"
    a_file.write_text("keep me\n")
    wrong = a_dir if wants == "file" else a_file
    code, _, err = run([*argv, flag, str(wrong)], capsys)
    assert code == 2 and str(wrong) in err
    assert a_file.read_bytes() == b"keep me\n" and not any(a_dir.iterdir())
    if wants == "file":  # an existing file is replaced, whole
        code, _, _ = run([*argv, flag, str(a_file)], capsys)
        assert code == 0 and a_file.read_bytes() != b"keep me\n"


@pytest.mark.parametrize("command", [["analyze"], ["annotate"], ["explain", "%c"], ["facts", "-o",
                                     "OUT"], ["anf"], ["dce", "--mode", "analysis"],
                                     ["dce", "--mode", "purity"], ["dce", "--mode", "assume-pure"]],
                         ids=lambda c: "-".join(c).replace("--mode-", ""))
def test_ill_typed_relay_is_refused_before_anything_is_written(command, tmp_path, capsys) -> None:
    src = tmp_path / "ill.relay"
    src.write_text(ILL_TYPED)
    out = tmp_path / "out.relay"
    argv = [command[0], str(src), *[str(tmp_path / "facts") if c == "OUT" else c
                                    for c in command[1:]]]
    if command[0] in ("annotate", "anf", "dce"):
        argv += ["-o", str(out)]
    code, _, err = run(argv, capsys)
    assert code == 2 and "ill.relay:3:12: type error: cannot broadcast" in err
    assert not out.exists() and not (tmp_path / "facts").exists()


def test_bytes_that_are_not_utf8_are_located(tmp_path, capsys) -> None:
    src = tmp_path / "latin1.relay"
    src.write_bytes(b'#[version = "0.0.5"]\ndef @main(%x: float32) {\n  %x \xe9\n}\n')
    code, _, err = run(["parse", str(src)], capsys)
    assert code == 2 and "latin1.relay:3:6:" in err and "0xe9" in err


def test_a_lone_carriage_return_is_the_lexers_error_and_line_numbers_hold(tmp_path,
                                                                          capsys) -> None:
    src = tmp_path / "cr.relay"  # TVM: a \r must be followed by \n; in a comment it is text
    src.write_bytes(b'#[version = "0.0.5"]\n// a\r comment\ndef @main(%x: float32) {\r  %x\n}\n')
    code, _, err = run(["parse", str(src)], capsys)
    assert code == 2 and "cr.relay:3:25: parse error: carriage return" in err
    crlf = tmp_path / "crlf.relay"
    crlf.write_bytes(b'#[version = "0.0.5"]\r\ndef @main(%x: float32) {\r\n  %x\r\n}\r\n')
    assert run(["parse", str(crlf)], capsys)[0] == 0


@pytest.mark.parametrize("command", ["parse", "run", "grad", "anf", "annotate"])
def test_a_relax_file_for_a_relay_command_is_a_clear_error(command, capsys) -> None:
    argv = [command, str(RELAX)] + {"run": ["--random", "0"]}.get(command, [])
    code, _, err = run(argv, capsys)
    assert code == 2 and "a TVMScript (Relax) file" in err


def test_precision_needs_a_run(capsys) -> None:
    code, _, err = run(["precision", str(DATA / "precision"), "--seeds", "0"], capsys)
    assert code == 2 and "--seeds 0" in err


@pytest.mark.parametrize("shape", ["lets", "tuples"])
def test_deep_nesting_within_the_parsers_limit_is_fine(shape, tmp_path, capsys) -> None:
    """450 levels (the parser allows 500): every DCE mode copes without a RecursionError."""
    body = "%x"
    for i in range(450):
        body = f"(let %v{i} = {body}; %v{i})" if shape == "lets" else f"({body},)"
    src = tmp_path / "deep.relay"
    src.write_text('#[version = "0.0.5"]\ndef @main(%x: float32) {\n  ' + body + "\n}\n")
    for mode in ("analysis", "purity", "assume-pure"):
        code, out, _ = run(["dce", str(src), "--mode", mode, "--engine", "embedded"], capsys)
        assert code == 0 and out.startswith('#[version = "0.0.5"]')


@pytest.mark.parametrize("command", [["check"], ["analyze"], ["dce"], ["facts", "-o", "f"]])
@pytest.mark.parametrize(("name", "reason"), [("free_var", "Var y is not defined"),
                                              ("dataflow_var_outside", "outside DataflowBlock")])
def test_ill_formed_relax_is_refused_with_tvms_reason(command, name, reason, tmp_path,
                                                       monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    path = DATA / "relax" / "ill_formed" / f"{name}.py"
    assert main([command[0], str(path), *command[1:]]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "not well-formed" in err and reason in err
    assert "Traceback" not in err and not (tmp_path / "f").exists()


def test_the_relax_api_refuses_an_ill_formed_module_too() -> None:
    import runpy

    from aliaslog.relax import analyze_relax
    from extractor.effect_table import ExtractError

    mod = runpy.run_path(str(DATA / "relax" / "ill_formed" / "free_var.py"))["mod"]
    with pytest.raises(ExtractError, match="not well-formed"):
        analyze_relax(mod)
