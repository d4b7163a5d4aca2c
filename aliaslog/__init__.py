"""aliaslog: everything that consumes the facts `extractor` writes.

`engines` solve the Datalog rules (Soufflé, or the embedded clingo engine); `analysis` runs a
Relay module through facts, rules and read-back to verdicts; `analysis_dce` removes what they
prove dead and `dce.relay_dce` runs that or one of TVM's two DCEs; `source_view`, `annotate`
and `oracle` explain and check verdicts, `precision` compares analysis variants, `scenario` is
the seed scenario; `relax` is the Relax side (analysis, checks, EffectAwareDCE); `zoo` holds
the model zoos, `batch` the batch runner and its report; `cli` is the command line and
`loading` reads its files.
"""
