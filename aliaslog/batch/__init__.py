"""Batch analysis of many models: worker processes or Dask, content-hash cache, reports.

One result row per model file (results.jsonl; results.csv flattens it):
  model, path, sha256, ir ("relay" | "relax"), variant (the workload, `aliaslog.workloads`:
  "plain", "anf", "gradient" or "training step" for Relay; the extraction point for Relax),
  status ("ok" | "error" | "timeout"), error (one line, or null), stages (seconds per stage:
  startup, load, typecheck, lower, facts, solve, read-back, dce), total_seconds, size
  (bindings, facts, nodes), metrics (the analysis's metric relation by name), dce
  (aliaslog_removed, tvm_removed, tvm_pass), engine, worker, cached. Failed rows have no
  size, metrics, dce or engine. A file found but not analysed (runner.py says which) closes
  results.jsonl as a row of model, path, ir, status "skipped" and reason.
"""
