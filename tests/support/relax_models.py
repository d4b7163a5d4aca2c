"""The Relax model fixtures in tests/data/relax: what each must hold, its loader, its inputs."""

from __future__ import annotations

import runpy
from dataclasses import dataclass
from typing import Any

import numpy as np
import tvm

from . import paths

DATA = paths.DATA / "relax"


@dataclass(frozen=True)
class Expect:
    """What each fixture must look like, written from the export configs in export.py."""

    input_name: str
    input_shape: tuple[int, ...]
    input_dtype: str
    int_high: int
    n_params: int
    out_shape: tuple[int, ...]
    min_bindings: int
    ops: frozenset[str]
    ends_in_layer_norm: bool


TRANSFORMER_OPS = frozenset(
    {"relax.reshape", "relax.matmul", "relax.nn.softmax", "relax.nn.layer_norm",
     "relax.permute_dims"}
)
EXPECT = {
    "bert": Expect("input_ids", (1, 16), "int64", 128, 38, (1, 16, 64), 120,
                   TRANSFORMER_OPS | {"relax.take", "relax.nn.gelu"}, True),
    "vit": Expect("pixel_values", (1, 3, 32, 32), "float32", 0, 39, (1, 17, 64), 120,
                  TRANSFORMER_OPS | {"relax.nn.conv2d", "relax.concat"}, True),
    "resnet": Expect("pixel_values", (1, 3, 32, 32), "float32", 0, 19, (1, 32, 4, 4), 25,
                     frozenset({"relax.nn.conv2d", "relax.nn.batch_norm", "relax.nn.relu",
                                "relax.nn.max_pool2d", "relax.add"}), False),
    "gpt2": Expect("input_ids", (1, 16), "int64", 128, 29, (1, 16, 64), 120,
                   TRANSFORMER_OPS | {"relax.take", "relax.tanh", "relax.split"}, True),
}
MODELS = sorted(EXPECT)


def load(name: str) -> Any:
    """Run the fixture file and return its single IRModule, as a user of the fixtures would."""
    ns = runpy.run_path(str(DATA / f"{name}.py"))
    mods = {k: v for k, v in ns.items() if isinstance(v, tvm.IRModule)}
    assert list(mods) == ["Module"]
    return mods["Module"]


def shape_of(ty: Any) -> tuple[int, ...]:
    """Static shape of a Relax tensor type as plain ints."""
    return tuple(int(d) for d in ty.shape)


def make_inputs(func: Any, exp: Expect) -> list[np.ndarray]:
    """Deterministic arguments for every parameter of `main`, read from the parameter types."""
    rng = np.random.default_rng(0)
    out = []
    for p in func.params:
        shape, dtype = shape_of(p.ty), str(p.ty.dtype)
        name = p.name
        if dtype.startswith("int"):
            out.append(rng.integers(0, exp.int_high, size=shape).astype(dtype))
        elif exp.ends_in_layer_norm and len(shape) == 1 and ("layernorm" in name or "ln_" in name):
            # Unit-scale, zero-shift norms make the last layer norm's effect testable.
            fill = 1.0 if name.endswith("weight") else 0.0
            out.append(np.full(shape, fill, dtype=dtype))
        else:
            out.append((rng.standard_normal(shape) * 0.1).astype(dtype))
    return out
