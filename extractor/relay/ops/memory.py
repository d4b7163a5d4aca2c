"""Memory, VM, device and annotation operators: alloc_storage / alloc_tensor, kill,
invoke_tvm_op, shape_of / reshape_tensor of the VM, on_device, device_copy, call_lowered,
checkpoint.

They appear in programs after TVM's memory planning and device planning. What calling them may
do is their declared effect, read from v0.19's `TOpIsStateful`: only `memory.kill` and
`vm.invoke_tvm_op` are stateful (effect `unknown`; the interpreter does not run them); the
allocations are not stateful in v0.19 but allocate (`allocates`, which the analysis sees as a
fresh object); the rest compute a fresh value (`none`), except `on_device`, whose result *is*
its argument (`alias`: the analysis must not take it for a fresh value, since the argument may
hold cells or closures). `annotation.checkpoint` is its argument (the gradient treats it
natively). Sources: src/relay/op/memory/{memory,on_device,device_copy}.cc,
src/relay/op/vm/vm.cc, src/relay/op/call/call.cc at v0.19.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ast import UNIT, Attrs, Constant, FuncType, TensorType, TupleType, Type, TypeCall, type_str
from . import kernel as K
from . import relation as R
from .registry import F, OpAttrs, OpDef, OpError, attr, register
from .relation import ArgMismatch, Defer, RelError, Same


def _any_identity_type(args: Sequence[Type], attrs: OpAttrs) -> Same:
    """IdentityRel over any type (tensor, tuple, function, ref), unified at once."""
    return Same(0)


def _checkpoint_kernel(args: list[Any], attrs: Attrs) -> Any:
    return K.tensor(args[0])


register(OpDef("annotation.checkpoint", 1, relation=_any_identity_type,
               kernel=_checkpoint_kernel))

# ------------------------------------------------------------------------- device annotations


def _on_device_kernel(args: list[Any], attrs: Attrs) -> Any:
    """The argument itself, whatever it is (interpreter.cc: `on_device(e)` evaluates to e)."""
    return args[0]


# OnDeviceAttrs: virtual_device (FullyUnconstrained, here None), constrain_result (false),
# constrain_body (true) -- include/tvm/relay/attrs/on_device.h
register(OpDef("on_device", 1, "relay.attrs.OnDeviceAttrs",
               (F("virtual_device", None), F("constrain_result", False),
                F("constrain_body", True)),
               effect="alias", relation=_any_identity_type, kernel=_on_device_kernel))


def _device_copy_kernel(args: list[Any], attrs: Attrs) -> Any:
    """A copy of the tensor (its FTVMCompute is topi::identity into a new buffer).

    v0.19's debug interpreter refuses device_copy outright; the VM and graph executors, which
    the tests that use it run on, copy.
    """
    return np.array(K.tensor(args[0]), copy=True)


register(OpDef("device_copy", 1, "relay.attrs.DeviceCopyAttrs",
               (F("src_virtual_device", None), F("dst_virtual_device", None)),
               relation=_any_identity_type, kernel=_device_copy_kernel))

# ------------------------------------------------------------------------------- allocation


def _int64_scalar(args: Sequence[Type], i: int) -> None:
    t = R.tensor(args, i)
    if t.shape or t.dtype != "int64":
        raise ArgMismatch(i, TensorType((), "int64"), t)


def _alloc_storage_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """AllocStorageRel: (size: int64, shape: a tensor, alignment: int64) -> Storage."""
    _int64_scalar(args, 0)
    R.tensor(args, 1)
    _int64_scalar(args, 2)
    return TypeCall("Storage", ())


register(OpDef("memory.alloc_storage", 3, "relay.attrs.AllocStorageAttrs",
               (F("dtype", "float32"), F("virtual_device", None)), effect="allocates",
               relation=_alloc_storage_type))


def const_shape_dims(v: Any) -> tuple[int, ...]:
    """FromConstShape: the dims a 1-D int32 / int64 constant holds (alloc_tensor's const_shape)."""
    if not isinstance(v, Constant):
        raise RelError(f"attribute const_shape must be a constant, not {v!r}")
    data = v.data
    if data.ndim != 1 or data.dtype not in (np.int32, np.int64):
        raise RelError(f"attribute const_shape must be a 1-D int32 or int64 constant, not "
                       f"{data.dtype}{list(data.shape)}")
    return tuple(int(d) for d in data)


def _alloc_tensor_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """AllocTensorRel: (Storage, offset, shape tensor) -> const_shape's dims, else assert_shape.

    v0.19 returns without assigning the result when only assert_shape is given (the result
    type stays whatever else fixes it); here assert_shape is taken as the result, which is what
    it asserts.
    """
    storage = args[0]
    if not isinstance(storage, TypeCall) or storage.name != "Storage":
        if R.has_incomplete(storage):
            raise Defer
        raise ArgMismatch(0, TypeCall("Storage", ()), storage)
    R.tensor(args, 1)
    shape_t = R.tensor(args, 2)
    dims = 0
    if shape_t.shape:
        if shape_t.shape[0] is None:
            raise RelError(f"the shape tensor needs a static length, not {type_str(shape_t)}", 2)
        dims = shape_t.shape[0]
    dtype = R.dtype_attr(attrs)
    if attrs["const_shape"] is not None:
        sh = const_shape_dims(attrs["const_shape"])
        if len(sh) != dims:
            raise RelError(f"const_shape has {len(sh)} dims but the shape tensor "
                           f"{type_str(shape_t)} has {dims}", 2)
        return TensorType(sh, dtype)
    if attrs["assert_shape"] is None:
        raise RelError("the assert_shape must be set when const_shape is not")
    return TensorType(R.ints(attrs["assert_shape"], "assert_shape"), dtype)


register(OpDef("memory.alloc_tensor", 3, "relay.attrs.AllocTensorAttrs",
               (F("dtype", "float32"), F("const_shape", nullable=True),
                F("assert_shape", nullable=True)),
               effect="allocates", relation=_alloc_tensor_type))


def _unit_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    return UNIT


register(OpDef("memory.kill", 1, stateful=True, effect="unknown", relation=_unit_type))

# ------------------------------------------------------------------------------------- VM


def _invoke_tvm_op_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """InvokeTVMOpRel: (fn, inputs tuple, outputs tuple) -> (); the tuples match fn's type."""
    ft = args[0]
    if R.has_incomplete(ft):
        raise Defer
    if not isinstance(ft, FuncType):
        raise RelError(f"expected a function but found {type_str(ft)}", 0)
    ins = TupleType(ft.arg_types)
    outs = ft.ret_type if isinstance(ft.ret_type, TupleType) else TupleType((ft.ret_type,))
    for i, want in ((1, ins), (2, outs)):
        if not isinstance(args[i], TupleType):
            if R.has_incomplete(args[i]):
                raise Defer
            raise ArgMismatch(i, want, args[i])
    return R.Result(UNIT, {1: ins, 2: outs})


register(OpDef("vm.invoke_tvm_op", 3, "DictAttrs", stateful=True, effect="unknown",
               relation=_invoke_tvm_op_type))


def _vm_shape_of_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """ShapeOfRel: a 1-D tensor of the rank, of `dtype` (vm.shape_of is built with int64)."""
    x = R.tensor(args, 0)
    return TensorType((len(x.shape),), attrs["dtype"] or "int64")


def _vm_shape_of_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    return np.array(x.shape, dtype=K.np_dtype(attr(attrs, "vm.shape_of", "dtype") or "int64"))


register(OpDef("vm.shape_of", 1, "relay.attrs.ShapeOfAttrs", (F("dtype", ""),),
               relation=_vm_shape_of_type, kernel=_vm_shape_of_kernel))


def _reshape_tensor_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """ReshapeTensorRel: `newshape` (the static knowledge of the shape tensor), data's dtype."""
    x = R.tensor(args, 0)
    R.tensor(args, 1)
    if attrs["newshape"] is None:
        raise RelError("attribute newshape is required")
    return TensorType(R.ints(attrs["newshape"], "newshape"), x.dtype)


def _reshape_tensor_kernel(args: list[Any], attrs: Attrs) -> Any:
    """The VM's ReshapeTensor instruction: data reshaped to the values of the shape tensor."""
    x, shape = K.tensor(args[0], "data"), K.tensor(args[1], "shape")
    if shape.ndim != 1 or not np.issubdtype(shape.dtype, np.integer):
        raise OpError(f"the shape must be a 1-D integer tensor, got {shape.dtype}{shape.shape}")
    dims = tuple(int(d) for d in shape)
    if int(np.prod(dims, dtype=np.int64)) != x.size:
        raise OpError(f"cannot reshape {x.shape} to {dims}")
    declared = attr(attrs, "vm.reshape_tensor", "newshape")
    if declared is not None and any(
            d is not None and d >= 0 and d != v for d, v in zip(K.ints(declared), dims,
                                                                 strict=False)):
        raise OpError(f"shape {dims} contradicts newshape {list(K.ints(declared))}")
    return x.reshape(dims)


register(OpDef("vm.reshape_tensor", 2, "relay.attrs.ReshapeTensorAttrs", (F("newshape"),),
               relation=_reshape_tensor_type, kernel=_reshape_tensor_kernel))

# ----------------------------------------------------------------------------- call_lowered


def _call_lowered_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """CallLoweredRel: (fn: fn(Ts) -> R, (Ts)) -> R."""
    ft = args[0]
    if R.has_incomplete(ft):
        raise Defer
    if not isinstance(ft, FuncType):
        raise RelError(f"expected a lowered function but found {type_str(ft)}", 0)
    want = TupleType(ft.arg_types)
    if not isinstance(args[1], TupleType):
        if R.has_incomplete(args[1]):
            raise Defer
        raise ArgMismatch(1, want, args[1])
    return R.Result(ft.ret_type, {1: want})


# the lowered (TIR) callee cannot run here, so there is no kernel; not stateful in v0.19
register(OpDef("call_lowered", 2, "relay.attrs.CallLoweredAttrs", (F("metadata", None),),
               relation=_call_lowered_type))
