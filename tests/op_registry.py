"""The op registry's pieces as tables by operator name, for the tests that ask which operators
have a kernel, a type relation or a gradient rule (the registry itself keeps them in `OpDef`)."""

from extractor.relay.ops import OPS, lookup

__all__ = ["OP_IMPLS", "RELATIONS", "RULES", "_BINARY", "_UNARY", "lookup"]

OP_IMPLS = {name: op.kernel for name, op in OPS.items() if op.kernel is not None}
RELATIONS = {name: op.relation for name, op in OPS.items() if op.relation is not None}
RULES = {name: op.gradient for name, op in OPS.items() if op.gradient is not None}

# The pure operators without attributes, of one and of two arguments: the elementwise-like
# operators the registry declared in two loops before it was split by family.
_UNARY = [name for name, op in OPS.items()
          if op.num_inputs == 1 and not op.attr_fields and op.effect == "none"]
_BINARY = [name for name, op in OPS.items()
           if op.num_inputs == 2 and not op.attr_fields and op.effect == "none"]
