"""A module TVM calls ill-formed: `y` is used but never defined."""
import tvm
from tvm import relax
from tvm.script import ir as I, relax as R
bb = relax.BlockBuilder()
x = relax.Var("x", R.Tensor((2,), "float32"))
y = relax.Var("y", R.Tensor((2,), "float32"))
with bb.function("main", [x]):
    z = bb.emit(relax.op.add(x, y))   # y is free
    bb.emit_func_output(z)
mod = bb.get()
