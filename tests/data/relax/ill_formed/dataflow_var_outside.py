"""A module TVM calls ill-formed: a DataflowVar bound outside a dataflow block."""
import tvm
from tvm import relax
from tvm.script import relax as R
x = relax.Var("x", R.Tensor((2,), "float32"))
dv = relax.DataflowVar("dv", R.Tensor((2,), "float32"))
call = relax.BlockBuilder().normalize(relax.op.add(x, x))
blk = relax.BindingBlock([relax.VarBinding(dv, call)])
f = relax.Function([x], relax.SeqExpr([blk], dv), R.Tensor((2,), "float32")).with_attr("global_symbol", "main")
mod = tvm.IRModule({"main": f})
