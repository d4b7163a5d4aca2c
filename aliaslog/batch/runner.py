"""Run a batch: collect model files, skip cached ones, analyse the rest on local workers or Dask.

Loading a TVMScript file runs it, so a `.py` file found by walking a directory is a model
only when it carries the module marker (`workloads.MODULE_MARKER`), and a zoo's
`NAME.lowered.py` beside its `NAME.py` is left to the worker, which lowers `NAME.py` itself:
both are listed as skipped, with the reason, in every output. A file named on the command
line is always analysed.

Every finished row is cached at once (see cache.py), so an interrupted batch resumes where it
stopped. A failure, a timeout or a dead worker is a row with its error; nothing one model does
stops the batch. Outputs (results.jsonl, results.csv, meta.json, report.html) are written
atomically at the end, also after an interruption, with the rows finished so far.
"""

from __future__ import annotations

import csv
import datetime
import importlib.metadata
import io
import json
import os
import platform
import selectors
import shutil
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..loading import UsageError, write_text_atomically
from ..workloads import (
    MODULE_MARKER,
    RELAX_SUFFIXES,
    RELAY_SUFFIXES,
    ir_of,
    is_lowered,
    is_module_file,
    model_name,
    zoo_suffix,
)
from .cache import ResultCache, file_digest
from .progress import Progress
from .task import Task
from .worker import WorkerProcess

STATUSES = ("ok", "error", "timeout")
NOT_MARKED = f"not marked as a module file (no '{MODULE_MARKER}' line), so not run"


@dataclass
class BatchResult:
    """Rows in input order and the run's metadata; `interrupted` when Ctrl-C ended it early;
    `skipped`: the files found but not analysed (path and reason)."""

    rows: list[dict[str, Any]]
    meta: dict[str, Any]
    out: Path
    interrupted: bool = False
    files: list[Path] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)


def collect(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], dict[Path, str]]:
    """Model files named or found (recursively) under directories, duplicates dropped; and the
    files a directory walk left out, with why (see the module docstring)."""
    roots = [Path(p) for p in paths]
    for p in roots:
        if not p.exists():
            raise UsageError(f"{p}: no such file or directory")
    named = {p.resolve() for p in roots if p.is_file()}
    out: list[Path] = []
    skipped: dict[Path, str] = {}
    seen: set[Path] = set()
    for f in (f for p in roots for f in ([p] if p.is_file() else _walk(p))):
        if f.resolve() in seen:
            continue
        seen.add(f.resolve())
        if f.resolve() in named or not f.name.endswith(RELAX_SUFFIXES) or is_module_file(f):
            out.append(f)
        else:
            skipped[f] = NOT_MARKED
    taken = {f.resolve() for f in out}
    for f in [f for f in out if is_lowered(f.name) and f.resolve() not in named]:
        source = f.with_name(model_name(f.name) + zoo_suffix("relax", "input"))
        if source.resolve() in taken:
            out.remove(f)
            skipped[f] = (f"the lowered form of {source.name}: the worker lowers {source.name} "
                          "itself (--at lowered) instead of parsing this file")
    if not out:
        raise UsageError("no model files (.relay, .json, .py) under "
                         + ", ".join(str(p) for p in roots)
                         + "".join(f"\n  skipped {f}: {why}" for f, why in skipped.items()))
    return out, skipped


def _walk(directory: Path) -> list[Path]:
    """The files under a directory whose names say model (not zoo.json, not hidden), sorted."""
    return sorted(f for f in directory.rglob("*")
                  if f.is_file() and f.name.endswith(RELAY_SUFFIXES + RELAX_SUFFIXES)
                  and f.name != "zoo.json" and not f.name.startswith("."))


def skipped_row(path: Path, reason: str) -> dict[str, Any]:
    """The results row of a file the batch left out."""
    return {"model": model_name(path.name), "path": str(path), "ir": ir_of(str(path)),
            "status": "skipped", "reason": reason}


def run_batch(
    paths: Iterable[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    task_options: dict[str, Any] | None = None,
    workers: int = 1,
    time_limit: float = 600.0,
    force: bool = False,
    dask_address: str | None = None,
    progress: bool = True,
    command: str = "",
) -> BatchResult:
    """Analyse every model under `paths` and write the results and report into `out`."""
    if workers < 1:
        raise UsageError(f"--workers must be at least 1, not {workers}")
    if time_limit <= 0:
        raise UsageError(f"--time-limit must be positive, not {time_limit:g}")
    files, left_out = collect(paths)
    skipped = [{"path": str(f), "reason": why} for f, why in left_out.items()]
    tasks = [Task(path=str(f), **(task_options or {})) for f in files]
    _check_effect_tables(tasks[0])
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    cache = ResultCache(out_dir / "cache")
    started = _now()
    digests = {t.path: file_digest(t.path) for t in tasks}
    keys = {t.path: cache.key(t, digests[t.path]) for t in tasks}
    rows: dict[str, dict[str, Any]] = {}
    previous: dict[str, dict[str, Any]] = {}  # --force: what the cache held, kept if stopped
    bar = Progress(len(tasks), enabled=progress)
    todo = []
    for t in tasks:
        hit = cache.get(keys[t.path])
        if hit is not None and not force:
            rows[t.path] = {**hit, "path": t.path, "cached": True}
            bar.finished(rows[t.path])
        else:
            if hit is not None:
                previous[t.path] = {**hit, "path": t.path, "cached": True}
            todo.append(t)
    todo.sort(key=lambda t: -Path(t.path).stat().st_size)  # big models first: less idle tail

    def done(task: Task, row: dict[str, Any]) -> None:
        row.update(path=task.path, sha256=digests[task.path], cached=False)
        cache.put(keys[task.path], row)
        rows[task.path] = row
        bar.finished(row, task.path)

    interrupted = False
    try:
        if dask_address:
            _run_dask(todo, dask_address, time_limit, bar, done)
        else:
            _run_local(todo, workers, time_limit, bar, done)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    for path, row in previous.items():  # an interrupted --force run keeps the older rows
        rows.setdefault(path, row)
    ordered = [rows[t.path] for t in tasks if t.path in rows]
    missing = [t.path for t in tasks if t.path not in rows]
    meta = _meta(started, ordered, workers, dask_address, task_options or {}, command,
                 interrupted, missing, skipped)
    write_outputs(out_dir, ordered, meta)
    return BatchResult(ordered, meta, out_dir, interrupted, files, skipped)


def _check_effect_tables(task: Task) -> None:
    """A missing or malformed effect table is one error naming its file and line, before any
    model runs (not the same error on every row)."""
    from extractor.effect_table import load_effect_table, load_tir_effect_table

    load_effect_table(*task.op_effects)
    load_tir_effect_table(*task.tir_effects)


def _run_local(todo: list[Task], workers: int, time_limit: float, bar: Progress,
               done: Callable[[Task, dict[str, Any]], None]) -> None:
    """N worker subprocesses fed one task at a time; an overrunning one is killed and replaced."""
    queue = list(reversed(todo))
    pool: list[WorkerProcess] = []
    sel = selectors.DefaultSelector()
    try:
        while queue or any(w.task for w in pool):
            for w in [w for w in pool if w.task is None and not queue]:
                sel.unregister(w.stdout)
                w.close()
                pool.remove(w)
            while queue and (len(pool) < workers or any(w.task is None for w in pool)):
                idle = next((w for w in pool if w.task is None), None)
                if idle is None:
                    idle = WorkerProcess()
                    pool.append(idle)
                    sel.register(idle.stdout, selectors.EVENT_READ, idle)
                task = queue.pop()
                idle.submit(task)
                bar.started(task.path)
            now = time.monotonic()
            busy = [w for w in pool if w.task is not None]
            wait = min((w.deadline(time_limit) - now for w in busy), default=1.0)
            for key, _ in sel.select(timeout=max(0.0, min(wait, 1.0))):
                w = key.data
                task = w.task
                row = w.poll_row()
                if row is not None:
                    if w.proc.poll() is not None:  # it died: replace it
                        sel.unregister(w.stdout)
                        pool.remove(w)
                    done(task, row)
            for w in [w for w in pool if w.task is not None
                      and time.monotonic() > w.deadline(time_limit)]:
                task = w.task
                sel.unregister(w.stdout)
                pool.remove(w)
                done(task, w.time_out(time_limit))
            bar.refresh()
    finally:
        for w in pool:
            w.kill()
        sel.close()


def _run_dask(todo: list[Task], address: str, time_limit: float, bar: Progress,
              done: Callable[[Task, dict[str, Any]], None]) -> None:
    """The same tasks as Dask futures; each Dask worker runs them in its own WorkerProcess."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise UsageError("--dask needs the `distributed` package: "
                         "pip install 'aliaslog[dask]'") from None
    from .dask_backend import run_remote

    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"--dask {address}: cannot connect to the scheduler ({exc})") from None
    try:
        futures = {}
        for t in todo:
            fut = client.submit(run_remote, t, time_limit, pure=False)
            futures[fut] = t
            bar.started(t.path)
        for fut in as_completed(futures):
            task = futures[fut]
            try:
                row = fut.result()
            except Exception as exc:  # noqa: BLE001 - a lost worker is that model's row
                from .worker import failure_row

                row = failure_row(task, "error", f"dask: {type(exc).__name__}: {exc}", 0.0,
                                  "dask")
            done(task, row)
    except KeyboardInterrupt:
        client.cancel(list(futures))
        raise
    finally:
        client.close()


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _souffle_version() -> str | None:
    exe = shutil.which("souffle")
    if exe is None:
        return None
    try:
        text = subprocess.run([exe, "--version"], capture_output=True, text=True,
                              timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return next((ln.split("Version:")[-1].strip() for ln in text.splitlines()
                 if "Version" in ln), text.strip().splitlines()[0] if text.strip() else None)


def _meta(started: str, rows: list[dict[str, Any]], workers: int, dask: str | None,
          options: dict[str, Any], command: str, interrupted: bool,
          missing: list[str], skipped: list[dict[str, Any]]) -> dict[str, Any]:
    counts = Counter(r["status"] for r in rows)
    engines = sorted({r["engine"] for r in rows if r.get("engine")})
    return {
        "started": started, "finished": _now(), "command": command,
        "workers": workers if not dask else None, "backend": "dask" if dask else "processes",
        "dask_address": dask, "interrupted": interrupted, "missing": missing,
        "skipped": skipped,
        "engine": ", ".join(engines) or options.get("engine", {}).get("engine", "auto"),
        "options": options,
        "versions": {"aliaslog": _version("aliaslog"), "python": platform.python_version(),
                     "numpy": _version("numpy"), "clingo": _version("clingo"),
                     "tvm": _version("apache-tvm"), "souffle": _souffle_version(),
                     "distributed": _version("distributed") if dask else None},
        "counts": {**{s: counts[s] for s in STATUSES},
                   "cached": sum(bool(r.get("cached")) for r in rows), "skipped": len(skipped)},
    }


CSV_HEAD = ["model", "ir", "variant", "path", "status", "error", "reason", "total_seconds",
            "engine", "worker", "cached", "sha256"]


def csv_text(rows: list[dict[str, Any]]) -> str:
    """One line per row; nested dicts flattened as stage:/size:/metric:/dce: columns."""
    extra: dict[str, None] = {}
    for r in rows:
        for group in ("stages", "size", "metrics", "dce"):
            for k in r.get(group) or {}:
                extra[f"{group}:{k}"] = None
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_HEAD + list(extra))
    for r in rows:
        flat = [r.get(k) for k in CSV_HEAD]
        for col in extra:
            group, k = col.split(":", 1)
            flat.append((r.get(group) or {}).get(k))
        w.writerow(["" if v is None else v for v in flat])
    return buf.getvalue()


def write_outputs(out: Path, rows: list[dict[str, Any]], meta: dict[str, Any]) -> None:
    """results.jsonl, results.csv, meta.json and report.html, each written atomically; the
    skipped files (meta's `skipped`) close results.jsonl and .csv as `skipped` rows."""
    from .report import write_report

    every = rows + [skipped_row(Path(s["path"]), s["reason"]) for s in meta.get("skipped", ())]
    write_text_atomically(out / "results.jsonl",
                          "".join(json.dumps(r, sort_keys=True) + "\n" for r in every))
    write_text_atomically(out / "results.csv", csv_text(every))
    write_text_atomically(out / "meta.json", json.dumps(meta, indent=2, sort_keys=True) + "\n")
    write_report(rows, meta, out / "report.html")
