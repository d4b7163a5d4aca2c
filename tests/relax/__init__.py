"""Tests of the Relax side on apache-tvm: analysis and `check`, `audit`, the reproduced
miscompilations, the model fixtures and aliaslog on them, the issue-12 soundness modules, the
Relax fuzzer."""
