"""Relay-to-Relay passes of TVM v0.19 that the interpreter and the analysis run first."""
