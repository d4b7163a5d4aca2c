"""IR front ends and IR -> facts: what aliaslog's analysis reads (it never imports aliaslog).

`relay` is the Relay language of TVM v0.19 (parser, printer, JSON, types, operator registry,
interpreter, transforms); `relay_facts` turns a Relay module into facts, `relax_load` and
`relax_facts` read apache-tvm's Relax IRModules and turn them into facts. `schema` is the one
table of fact relations (it generates `datalog_rules/schema.dl`), `facts` the fact set and its
files, `effect_table` the effect vocabulary and the user's effect tables. Low-level helpers
every package may use: `diagnostics` (the located errors every package reports), `tsv` (the
cell codec of fact and result files), `runtime` (deep recursion, pausing the collector).
"""
