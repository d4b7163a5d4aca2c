"""Tests of the Relay language (extractor/relay): parser, parse errors, printer, text fidelity,
JSON, alpha equality, round trips, type inference, interpreter, op kernels, gradient (conv/pool
and the other ops' rules too) and first-order gradient, SimplifyInference, training step, TVM's
two baseline DCEs, the passes' memory guards, and TVM v0.19's own Relay tests."""
