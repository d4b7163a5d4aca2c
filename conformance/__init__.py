"""The project checked against others' own tests and tools: conformance, not measurement.

Each script runs a peer's test suite (read from a git mirror at run time, never copied) through
aliaslog and classifies every test; nothing here times anything (that is `benchmarks/`). Run
them from the repository root; the tests import this package without installing it, and set
the environment variable named below to run it.

  python conformance/relay_tvm_tests.py --tvm MIRROR [--rev v0.19.0] [--json OUT] [--jobs N]
      TVM v0.19's Relay tests against the project's Relay (`relay_tvm/`, with its `tvm`
      stand-in `relay_tvm/shim`); tests/relay/test_relay_tvm_suite.py (ALIASLOG_TVM_CLONE)
  python conformance/souffle_suite.py --clone PATH [--ref 2.5]
      Soufflé 2.5's test suite through the embedded engine;
      tests/engines/test_engine_souffle_suite.py (ALIASLOG_SOUFFLE_CLONE)
  python conformance/relax_tvm_tests.py MIRROR [--rev REV] [--jobs N] [--files GLOB]
      `check`, `analyze` and `dce` on every IRModule of TVM's Relax transform tests
  python conformance/report_screenshot.py REPORT.html -o shot.png
      a batch report rendered by headless Chromium, every chart drawn;
      tests/batch/test_batch_report.py (when /usr/bin/chromium exists)
"""
