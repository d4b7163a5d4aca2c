"""aliaslog: everything that consumes the facts `extractor` writes.

`engines` solve the Datalog rules (Soufflé, or the embedded clingo engine) and `pipeline` runs
facts -> engine -> validated verdicts for both IRs; `relay` and `relax` are each IR's consumers
(verdicts, DCE, explanations and checks, and their commands); `options` declares every analysis
and engine option once, `analyze_report` is what `analyze` prints for either IR; `zoo` holds
the model zoos, `workloads` the one table of what their files are (read by zoo, batch and
report), `batch` the batch runner and its report, `plots` its SVG charts; `cli` is the
command line and `loading` reads its files and writes its outputs.
"""
