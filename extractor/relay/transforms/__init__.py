"""Relay -> Relay passes of TVM v0.19, each a function from module to module.

`anf` (ToANormalForm), `eta_expand` (EtaExpand) and `simplify_inference` (SimplifyInference),
which `prepare` runs as the debug executor does before the interpreter and the analysis;
`gradient` (higher-order reverse-mode AD) and `training` (a training step around it);
`dead_code` (TVM's DCE before and after PR #9542, the baselines of the analysis DCE).
"""
