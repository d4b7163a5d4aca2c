"""Relay consumers of the analysis: verdicts, DCE, explain, annotate, the oracle, the precision lab.

`analysis` runs a Relay module through facts, rules and read-back to an `AnalysisResult`, and
`source_view` reports its verdicts against the program as written; `dce` is every Relay DCE
mode behind one entry point (`relay_dce`, `MODES`); `annotate` marks each binding keep or dead
(text or JSON); `oracle` observes interpreter runs as ground truth, `precision` compares the
analysis variants against it; `scenario` is the seed scenario the demo runs; `cli_commands`
are the Relay commands of the command line.
"""
