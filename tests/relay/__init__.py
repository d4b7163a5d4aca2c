"""Tests of the Relay language (extractor/relay): parser, parse errors, printer, JSON, alpha
equality, round trips, type inference, interpreter, gradient (conv/pool too), training step,
TVM's two baseline DCEs, the passes' memory guards, and TVM v0.19's own Relay tests."""
