"""The Relay language in Python, as TVM v0.19 has it (TVM 0.20 dropped Relay): every stage.

- `ast`: the nodes (small and immutable), traversals, `ExprMutator`, `type_str`;
- syntax: `lexer` and `parser` (text format v0.0.5), `printer` (`astext`), `json_io`
  (`tvm.ir.save_json`), `alpha` (alpha-equivalence);
- `typeinfer`: type inference;
- `ops`: the operator registry, one declaration per operator (attributes, type relation, numpy
  kernel, gradient rule, effect), by family;
- `interpreter`: TVM's debug interpreter, on numpy;
- `transforms`: Relay -> Relay passes (A-normal form, eta expansion, SimplifyInference, the
  debug executor's `prepare`, the higher-order gradient, a training step, TVM's two DCEs);
- `errors`: ParseError, RelayTypeError, JsonLoadError, TransformError.
"""
