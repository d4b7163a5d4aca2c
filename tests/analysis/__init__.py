"""Tests of the Relay analysis: facts to verdicts, DCE soundness and precision on the corpus and
on the soundness classes, context variants, the dynamic and removal oracles, `precision`,
relation properties, the seed bug end to end, and random programs (hypothesis + regressions)."""
