"""The op registry's pieces as tables by operator name, for the tests that ask which operators
have a kernel, a type relation or a gradient rule (the registry itself keeps them in `OpDef`)."""

from extractor.relay.ops import OPS, lookup

__all__ = ["CONV_POOL_GRADIENTS", "OPS_GRADIENTS", "OP_IMPLS", "RELATIONS", "RULES", "_BINARY",
           "_UNARY", "lookup"]

OP_IMPLS = {name: op.kernel for name, op in OPS.items() if op.kernel is not None}
RELATIONS = {name: op.relation for name, op in OPS.items() if op.relation is not None}
RULES = {name: op.gradient for name, op in OPS.items() if op.gradient is not None}

# The pure operators without attributes, of one and of two arguments: the elementwise-like
# operators the registry declared in two loops before it was split by family.
_UNARY = [name for name, op in OPS.items()
          if op.num_inputs == 1 and not op.attr_fields and op.effect == "none"]
_BINARY = [name for name, op in OPS.items()
           if op.num_inputs == 2 and not op.attr_fields and op.effect == "none"]

# The gradient rules tests/relay/test_grad_conv_pool.py exercises (it checks that it does;
# tests/relay/test_gradient.py checks that every rule is exercised somewhere).
CONV_POOL_GRADIENTS = frozenset({"nn.conv2d", "nn.max_pool2d", "nn.avg_pool2d",
                                 "nn.global_avg_pool2d"})

# The gradient rules tests/relay/test_grad_ops.py exercises.
OPS_GRADIENTS = frozenset({"max", "mean", "expand_dims", "strided_slice", "gather_nd",
                           "contrib_reverse_reshape",
                           "collapse_sum_to", "split", "nn.conv2d_transpose", "nn.conv3d",
                           "nn.adaptive_avg_pool3d"})
