"""An mlc-llm-style step with a KV cache that a packed function appends to in place.

`mypipe.kv_append(cache, k)` writes `k` into the cache's first row and returns the cache (what
kv_cache.effects.tsv says: reads=0,1 writes=0 returns=0). Writing the cache parameter is what
a KV cache is for: `check --mutable main:cache` accepts it. `Correct` reads the cache through
the name the append returns; `CorrectEdited` is the same after an unrelated edit (a binding
and lines added); `StaleRead` reads the old name after the append, which sees the new rows.
"""

import tvm_ffi
from tvm.script import ir as I
from tvm.script import relax as R


@tvm_ffi.register_global_func("mypipe.kv_append", override=True)
def _kv_append(cache: object, k: object) -> object:
    """Write k into row 0 of the cache, in place, and return the cache."""
    rows = cache.numpy()
    rows[0, :] = k.numpy()[0, :]
    cache.copyfrom(rows)
    return cache


@I.ir_module
class Correct:
    @R.function(pure=False)
    def main(cache: R.Tensor((4, 4), "float32"), k: R.Tensor((1, 4), "float32")):
        new = R.call_packed("mypipe.kv_append", cache, k, ty_args=R.Tensor((4, 4), "float32"))
        s = R.sum(new, axis=[0])
        return s


@I.ir_module
class CorrectEdited:
    @R.function(pure=False)
    def main(cache: R.Tensor((4, 4), "float32"), k: R.Tensor((1, 4), "float32")):
        # an unrelated edit: a scaled key, and the lines below move down
        k2 = R.multiply(k, R.const(1.0, "float32"))
        new = R.call_packed("mypipe.kv_append", cache, k2, ty_args=R.Tensor((4, 4), "float32"))
        s = R.sum(new, axis=[0])
        return s


@I.ir_module
class StaleRead:
    @R.function(pure=False)
    def main(cache: R.Tensor((4, 4), "float32"), k: R.Tensor((1, 4), "float32")):
        new = R.call_packed("mypipe.kv_append", cache, k, ty_args=R.Tensor((4, 4), "float32"))
        s = R.sum(new, axis=[0])
        old = R.sum(cache, axis=[0])
        return (s, old)


