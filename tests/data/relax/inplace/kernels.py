"""Kernels for the in-place kernel analysis: which output may overwrite which input.

`EXPECT` maps kernel -> (output parameter, input parameter, None when writing the output into
the input is safe, else a phrase the refusal must contain).
"""

from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Kernels:
    @T.prim_func(private=True, s_tir=True)
    def elementwise(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] * B[vj] + A[vi, vj]

    @T.prim_func(private=True, s_tir=True)
    def transpose(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vj, vi]

    @T.prim_func(private=True, s_tir=True)
    def matmul(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        for i, j, k in T.grid(4, 4, 4):
            with T.sblock("c"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func(private=True, s_tir=True)
    def shift(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.sblock("c"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] + A[T.max(vi - 1, 0)]

    @T.prim_func(private=True, s_tir=True)
    def exp_then_transpose(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        E = T.sblock_alloc_buffer((4, 4))
        for i, j in T.grid(4, 4):
            with T.sblock("e"):
                vi, vj = T.axis.remap("SS", [i, j])
                E[vi, vj] = T.exp(A[vi, vj])
        for i, j in T.grid(4, 4):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = E[vj, vi]

    @T.prim_func(private=True, s_tir=True)
    def softmax_like(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        M = T.sblock_alloc_buffer((4,))
        for i, k in T.grid(4, 4):
            with T.sblock("m"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    M[vi] = T.float32(-3.0e38)
                M[vi] = T.max(M[vi], A[vi, vk])
        for i, j in T.grid(4, 4):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.exp(A[vi, vj] - M[vi])

    @T.prim_func(private=True, s_tir=True)
    def read_after(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32"), D: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("c"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] + T.float32(1)
        for i in range(4):
            with T.sblock("d"):
                vi = T.axis.remap("S", [i])
                D[vi] = A[3 - vi]

    @T.prim_func(private=True, s_tir=True)
    def two_writers(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("c0"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi]
        for i in range(4):
            with T.sblock("c1"):
                vi = T.axis.remap("S", [i])
                C[vi] = C[vi] + T.float32(1)

    @T.prim_func(private=True)
    def plain(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
        for i in range(4):
            C[i] = A[i] + T.float32(1)


EXPECT = {
    "elementwise": [(2, 0, None), (2, 1, "differ in shape")],
    "transpose": [(1, 0, "another element")],
    "matmul": [(2, 0, "reduction"), (2, 1, "reduction")],
    "shift": [(1, 0, "another element")],
    "exp_then_transpose": [(1, 0, None)],
    "softmax_like": [(1, 0, None)],
    "read_after": [(1, 0, "reads `A` after or while"), (2, 0, "another element")],
    "two_writers": [(1, 0, "2 blocks write")],
    "plain": [(1, 0, "not made of blocks")],
}
