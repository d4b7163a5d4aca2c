"""The function a Dask worker runs per model: the local runner's isolation, on a remote machine.

Each Dask worker thread keeps one WorkerProcess, so imports are paid once per thread and a
model that overruns its time limit is killed without killing the Dask worker. Workers need
only the aliaslog package (and tvm for Relax models): no shared filesystem beyond the model
paths, which the task carries.
"""

from __future__ import annotations

import threading
from typing import Any

from .task import Task
from .worker import WorkerProcess

_local = threading.local()


def run_remote(task: Task, time_limit: float) -> dict[str, Any]:
    """Analyse one model in this thread's worker subprocess; its row names the Dask worker."""
    w: WorkerProcess | None = getattr(_local, "worker", None)
    if w is None or w.proc.poll() is not None:
        w = _local.worker = WorkerProcess()
    w.submit(task)
    row = w.wait_row(time_limit)
    if w.proc.poll() is not None:
        _local.worker = None
    try:
        from distributed import get_worker

        row["worker"] = f"dask {get_worker().address} ({row.get('worker', '')})"
    except (ImportError, ValueError):
        pass
    return row
