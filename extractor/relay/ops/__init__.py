"""The Relay operator registry: one declaration per operator, every piece of it in one place.

`registry` defines the declaration, `OpDef`: arity, attributes (type key, fields, TVM v0.19
defaults), type relation, numpy kernel, gradient rule, statefulness and effect; the table
`OPS`; and how a call's attributes are read (defaults filled in) and normalised for printing,
save_json and comparison. `relation`, `kernel` and `grad` hold what type relations, kernels
and gradient rules share. The operators are declared by family, each with its pieces next to
it: `elementwise`, `reductions`, `nn`, `conv`, `pooling`, `image`, `transform`, `indexing`,
`algorithm`, `memory`.

Adding an operator is one `register(OpDef(...))` in the module of its family (a program's own
operator may be registered the same way before parsing).
"""

# importing the families declares their operators
from . import (  # noqa: F401
    algorithm,
    conv,
    elementwise,
    image,
    indexing,
    memory,
    nn,
    pooling,
    reductions,
    transform,
)
from .grad import RuleError
from .kernel import np_dtype
from .registry import (
    ATTRS_TYPES,
    GRAD_EXTENSION,
    GRAD_ORIGINS,
    GRAD_V019,
    GRAD_V019_VARIANT,
    NO_DEFAULT,
    OPS,
    AttrField,
    GradRule,
    OpAttrs,
    OpDef,
    OpError,
    attr,
    attr_norm,
    closest,
    effective_call_attrs,
    lookup,
    make_call,
    printed_call_attrs,
    register,
)
from .relation import ArgMismatch, Defer, RelError, Result, Same, broadcast_shapes

__all__ = [
    "ATTRS_TYPES", "GRAD_EXTENSION", "GRAD_ORIGINS", "GRAD_V019", "GRAD_V019_VARIANT",
    "NO_DEFAULT", "OPS", "ArgMismatch", "AttrField", "Defer", "GradRule", "OpAttrs", "OpDef",
    "OpError", "RelError", "Result", "RuleError", "Same", "attr", "attr_norm", "broadcast_shapes",
    "closest", "effective_call_attrs", "lookup", "make_call", "np_dtype", "printed_call_attrs",
    "register",
]
