"""A `souffle` that lies, hangs or breaks never gives a wrong answer or a traceback.

Fake `souffle` executables on PATH, each standing for a way a real one (or what sits on PATH
under its name) can fail: garbage output, another program's CSVs, truncated or empty CSVs, a
hang, a crash, a file that is not executable. With `--engine souffle` each is a clear engine
error (exit 2); with `--engine auto` the analysis falls back to the embedded engine, says why,
and gives the embedded engine's answer.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aliaslog.cli import main
from aliaslog.relay.analysis import analyze
from extractor.relay.parser import parse_file
from tests.support.options import EMBEDDED
from tests.support.paths import DATA

PROGRAM = DATA / "analysis" / "write_overwritten.relay"
OTHER = DATA / "analysis" / "grad_seed.relay"

FAKES = {
    "garbage": 'while [ $# -gt 0 ]; do [ "$1" = -D ] && out=$2; shift; done\n'
               'for f in kept removable keep_reason metric pts; do '
               'printf "\\377\\376 not a row\\n" > "$out/$f.csv"; done\n',
    "another_program": 'while [ $# -gt 0 ]; do [ "$1" = -D ] && out=$2; shift; done\n'
                       'cp "$OTHER_OUT"/*.csv "$out"/\n',
    "truncated": 'while [ $# -gt 0 ]; do [ "$1" = -D ] && out=$2; shift; done\n'
                 'cp "$OWN_OUT"/*.csv "$out"/\nhead -n 1 "$OWN_OUT/kept.csv" > "$out/kept.csv"\n',
    "empty": 'while [ $# -gt 0 ]; do [ "$1" = -D ] && out=$2; shift; done\n'
             'for f in "$OWN_OUT"/*.csv; do : > "$out/$(basename "$f")"; done\n',
    "no_outputs": "exit 0\n",
    "hang": "sleep 600\n",
    "crash": 'echo "segmentation fault in the solver" >&2\nkill -SEGV $$\n',
}


def fake(tmp_path: Path, body: str, executable: bool = True) -> Path:
    """A directory holding a `souffle` script (to put first on PATH)."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    exe = bindir / "souffle"
    exe.write_text("#!/bin/sh\n" + 'if [ "$1" = --version ]; then echo "Version: 2.5"; exit 0; '
                   "fi\n" + body)
    mode = stat.S_IRUSR | stat.S_IWUSR | (stat.S_IXUSR if executable else 0)
    exe.chmod(mode)
    return bindir


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, object]:
    """The embedded engine's answer, and real output directories of this and another program."""
    base = tmp_path_factory.mktemp("ref")
    assert main(["analyze", str(OTHER), "--engine", "embedded", "--keep-files",
                 str(base / "other")]) == 0
    assert main(["analyze", str(PROGRAM), "--engine", "embedded", "--keep-files",
                 str(base / "own")]) == 0
    res = analyze(parse_file(PROGRAM), engine=EMBEDDED)
    return {"other": base / "other" / "out", "own": base / "own" / "out",
            "answer": (len(res.kept()), len(res.removable()))}


def _analyze(engine: str, capsys, timeout: str | None = None) -> tuple[int, dict | None, str]:
    argv = ["analyze", str(PROGRAM), "--engine", engine, "--json"]
    if timeout:
        argv += ["--timeout", timeout]
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in err, err
    return code, (json.loads(out) if code == 0 else None), err


@pytest.mark.parametrize("name", sorted(FAKES))
def test_a_lying_souffle_is_an_engine_error_and_auto_falls_back(
        name, reference, tmp_path, monkeypatch, capsys, caplog) -> None:
    monkeypatch.setenv("PATH", f"{fake(tmp_path, FAKES[name])}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("OTHER_OUT", str(reference["other"]))
    monkeypatch.setenv("OWN_OUT", str(reference["own"]))
    assert shutil.which("souffle") == str(tmp_path / "bin" / "souffle")
    timeout = "3" if name == "hang" else None
    code, _, err = _analyze("souffle", capsys, timeout)
    assert code == 2 and "engine error" in err, err
    code, doc, err = _analyze("auto", capsys, timeout)
    assert code == 0 and doc is not None and doc["engine"] == "embedded"
    assert (doc["kept"], doc["removable"]) == reference["answer"]
    assert "falling back" in caplog.text or "embedded engine" in caplog.text


def test_a_souffle_that_is_not_executable(tmp_path, monkeypatch, capsys) -> None:
    bindir = fake(tmp_path, "exit 0\n", executable=False)
    rest = [d for d in os.environ["PATH"].split(os.pathsep)  # a real souffle would be found
            if not shutil.which("souffle", path=d)]
    monkeypatch.setenv("PATH", os.pathsep.join([str(bindir), *rest]))
    assert shutil.which("souffle") is None
    code, doc, _ = _analyze("auto", capsys)  # not on PATH as far as `which` is concerned
    assert code == 0 and doc is not None and doc["engine"] == "embedded"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text(
    ).split()[2]


def _hanging_souffle(tmp_path: Path) -> tuple[dict[str, str], Path]:
    pidfile = tmp_path / "souffle.pid"
    bindir = fake(tmp_path, f'echo $$ > "{pidfile}"\nexec sleep 600\n')
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    return env, pidfile


def _wait_for(path: Path, seconds: float = 60) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.1)
    raise AssertionError(f"{path} never appeared")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_analysis_leaves_no_souffle_running(sig, tmp_path) -> None:
    env, pidfile = _hanging_souffle(tmp_path)
    # a job a non-interactive shell started in the background inherits SIGINT ignored, and
    # Python then keeps ignoring it: give aliaslog the default, as a terminal would
    proc = subprocess.Popen([sys.executable, "-m", "aliaslog.cli", "analyze", str(PROGRAM),
                             "--engine", "souffle"], env=env, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    pid = _wait_for(pidfile)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err
    time.sleep(0.5)
    assert not _alive(pid), "souffle survived aliaslog"


def test_a_batch_time_limit_kills_the_souffle_of_the_model(tmp_path) -> None:
    env, pidfile = _hanging_souffle(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "aliaslog.cli", "batch", str(PROGRAM), "--out",
                           str(tmp_path / "out"), "--engine", "souffle", "--workers", "1",
                           "--time-limit", "5", "--quiet"], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 1 and "1 models failed or timed out" in proc.stderr
    pid = _wait_for(pidfile, 5)
    time.sleep(0.5)
    assert not _alive(pid), "souffle outlived its batch worker"


def test_auto_waits_a_short_time_on_a_hanging_souffle_and_says_so(tmp_path) -> None:
    env, _ = _hanging_souffle(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "aliaslog.cli", "analyze", str(PROGRAM),
                           "--engine", "auto", "--timeout", "2"], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0 and "embedded" in proc.stdout
    assert "souffle failed, falling back to the embedded engine" in proc.stderr
    assert "timed out after 2 s" in proc.stderr
