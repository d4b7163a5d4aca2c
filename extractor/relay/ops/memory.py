"""Memory, VM and annotation operators: alloc_storage / alloc_tensor, kill, invoke_tvm_op,
checkpoint.

They appear in programs after TVM's memory planning; what calling them may do is their
declared effect (allocation; `unknown` for the stateful kill and invoke, which the interpreter
does not run). `annotation.checkpoint` is its argument (the gradient treats it natively).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..ast import UNIT, Attrs, TensorType, Type, TypeCall, type_str
from . import kernel as K
from . import relation as R
from .registry import F, OpAttrs, OpDef, register
from .relation import Defer, RelError


def _checkpoint_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    if R.has_incomplete(args[0]):
        raise Defer
    return args[0]


def _checkpoint_kernel(args: list[Any], attrs: Attrs) -> Any:
    return K.tensor(args[0])


register(OpDef("annotation.checkpoint", 1, relation=_checkpoint_type, kernel=_checkpoint_kernel))


def _alloc_storage_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    return TypeCall("Storage", ())


register(OpDef("memory.alloc_storage", 2, "relay.attrs.AllocStorageAttrs",
               (F("dtype", "float32"), F("virtual_device", None)), effect="allocates",
               relation=_alloc_storage_type))


def _alloc_tensor_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    dtype = R.dtype_attr(attrs)
    for key in ("const_shape", "assert_shape"):
        if attrs[key] is not None:
            return TensorType(R.ints(attrs[key], key), dtype)
    shape = R.tensor(args, 2)
    if len(shape.shape) != 1 or shape.shape[0] is None:
        raise RelError(f"expected a 1-D shape tensor of known length but found "
                       f"{type_str(shape)}", 2)
    return TensorType((None,) * shape.shape[0], dtype)


register(OpDef("memory.alloc_tensor", 3, "relay.attrs.AllocTensorAttrs",
               (F("const_shape", None), F("assert_shape", None), F("dtype", "float32")),
               effect="allocates", relation=_alloc_tensor_type))


def _unit_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    return UNIT


register(OpDef("memory.kill", 1, stateful=True, effect="unknown", relation=_unit_type))
register(OpDef("vm.invoke_tvm_op", 3, stateful=True, effect="unknown", relation=_unit_type))
