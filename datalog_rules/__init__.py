"""The analysis rules, in plain Soufflé; shipped in the wheel so `souffle` runs them as-is."""

from pathlib import Path

RULES_DIR = Path(__file__).resolve().parent
MAIN = RULES_DIR / "main.dl"
RELAX_MAIN = RULES_DIR / "relax.dl"
RELAX_INPLACE = RULES_DIR / "relax_inplace.dl"
RELAX_PEAK = RULES_DIR / "relax_peak.dl"
