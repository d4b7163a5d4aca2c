"""A long-lived analysis subprocess that can be killed, with its children, when a model overruns.

Both backends use it: the local runner keeps N of them; on Dask each worker process keeps one.
The subprocess runs in its own session, so killing its process group also stops a Soufflé
child it may have started.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from typing import IO, Any

from ..workloads import ir_of, model_name, variant_of
from .task import BEGIN, Task

STARTUP_LIMIT = 300.0  # seconds a worker may spend importing before its first model starts


def failure_row(task: Task, status: str, error: str, seconds: float, worker: str) -> dict[str, Any]:
    """The row of a model whose worker timed out or died: no metrics, but the error and time."""
    return {"model": model_name(task.path), "path": task.path, "ir": ir_of(task.path),
            "variant": variant_of(task.path, task.relax_point), "status": status, "error": error,
            "worker": worker, "stages": {}, "total_seconds": round(seconds, 6)}


class WorkerProcess:
    """`python -m aliaslog.batch.task` with a line protocol: one task in, one row out."""

    def __init__(self) -> None:
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - lives with the worker
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "aliaslog.batch.task"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._stderr, start_new_session=True)
        self.task: Task | None = None
        self.started = 0.0  # submission, then (BEGIN) the start of the model's own work
        self.begun = False
        self._buf = b""

    @property
    def stdout(self) -> IO[bytes]:
        assert self.proc.stdout is not None
        return self.proc.stdout

    def submit(self, task: Task) -> None:
        """Send one task; the row arrives on stdout (see `poll_row`)."""
        assert self.proc.stdin is not None and self.task is None
        self.task, self.started, self.begun = task, time.monotonic(), False
        self.proc.stdin.write((json.dumps(task.__dict__) + "\n").encode())
        self.proc.stdin.flush()

    def poll_row(self) -> dict[str, Any] | None:
        """Read what is available; the row once a whole line is in, else None.

        Call it when the stdout is readable. The BEGIN line restarts the clock: the time limit
        counts the model's own work, not the worker's imports. EOF means the worker died: that
        becomes an error row carrying the last line it wrote to stderr (a fatal signal, ...).
        """
        assert self.task is not None
        chunk = os.read(self.stdout.fileno(), 1 << 20)
        if not chunk:
            return self._died()
        self._buf += chunk
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            if line.decode() == BEGIN:
                self.started, self.begun = time.monotonic(), True
                continue
            self.task = None
            return json.loads(line)
        return None

    def deadline(self, limit: float) -> float:
        """When the task overruns: `limit` after BEGIN; before it, imports get STARTUP_LIMIT."""
        return self.started + (limit if self.begun else max(limit, STARTUP_LIMIT))

    def wait_row(self, limit: float) -> dict[str, Any]:
        """Block until the row arrives or `limit` seconds from submission pass (then kill)."""
        assert self.task is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self.stdout, selectors.EVENT_READ)
            while True:
                left = self.deadline(limit) - time.monotonic()
                if left <= 0:
                    return self.time_out(limit)
                if sel.select(left):
                    row = self.poll_row()
                    if row is not None:
                        return row

    def time_out(self, limit: float) -> dict[str, Any]:
        """Kill the worker (and its children) and describe the overrunning task."""
        task = self.task
        assert task is not None
        self.kill()
        return failure_row(task, "timeout", f"time limit of {limit:g} s exceeded",
                           time.monotonic() - self.started, f"pid {self.proc.pid}")

    def _died(self) -> dict[str, Any]:
        task = self.task
        assert task is not None
        code = self.proc.wait()
        self._stderr.seek(0)
        last = [ln for ln in self._stderr.read().decode(errors="replace").splitlines()
                if ln.strip()]
        why = f"signal {-code}" if code < 0 else f"exit code {code}"
        self.kill()
        return failure_row(task, "error", f"worker died ({why})" + (f": {last[-1]}" if last
                                                                   else ""),
                           time.monotonic() - self.started, f"pid {self.proc.pid}")

    def kill(self) -> None:
        """Stop the worker's whole process group; the object is unusable afterwards."""
        self.task = None
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            if f is not None:
                f.close()
        self._stderr.close()

    def close(self) -> None:
        """End the worker gracefully (EOF on stdin), killing it if it does not exit."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.kill()
