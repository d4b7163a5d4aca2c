"""Export small random-weight HF models to TVMScript Relax fixtures, so tests need no torch.

Run `python -m aliaslog.relax.export -o tests/data/relax [--models bert vit resnet gpt2]`
with the `zoo` extra installed (`pip install -e '.[zoo]'`, torch and transformers) plus
apache-tvm. Each model is built from a tiny config with fixed seeds, exported with
`torch.export`, imported with `tvm.relax.frontend.torch.from_exported_program` keeping the
parameters as function inputs, and written as one self-contained Python file that defines
`Module` (the `mod.script()` text with real import lines).

The printer of apache-tvm 0.27 crashes on `show_meta=True`, so the few tensor constants that
`script()` prints as `metadata["ir.GenericConst"][i]` (model buffers such as BERT's
position ids or ResNet's batch-norm statistics) are written to a `metadata` dict at the top
of the file, base64-encoded; the TVMScript parser resolves the name from the file's globals.
Every written file is reloaded with `runpy` and must be structurally equal to the imported
module, so a wrong constant order cannot go unnoticed.
"""

from __future__ import annotations

import argparse
import base64
import importlib.metadata
import os
import re
import runpy
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

MODELS = ("bert", "vit", "resnet", "gpt2")
SEED = 0
SEQ_LEN = 16
IMAGE_SIZE = 32
INSTALL_HINT = "pip install -e '.[zoo]'"
META_KEY = "ir.GenericConst"
_META_REF = re.compile(r'metadata\["ir\.GenericConst"\]\[(\d+)\]')


class ZooUnavailable(RuntimeError):
    """Raised when torch, transformers or tvm is missing, so the CLI can print one clear line."""


@dataclass(frozen=True)
class Zoo:
    """The optional modules, imported once, so no import of them happens at package import."""

    torch: ModuleType
    transformers: ModuleType
    tvm: ModuleType
    relax: ModuleType
    from_exported_program: Callable[..., Any]


@dataclass(frozen=True)
class ModelSpec:
    """A wrapped torch model and its example inputs, ready for torch.export."""

    name: str
    module: Any
    args: tuple[Any, ...]
    summary: str


@dataclass(frozen=True)
class Exported:
    """One written fixture, kept for the report the CLI prints."""

    name: str
    path: Path
    size: int
    bindings: int
    seconds: float


def import_zoo() -> Zoo:
    """Import the heavy optional dependencies lazily, turning absence into ZooUnavailable."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise ZooUnavailable(
            f"aliaslog.relax.export needs {exc.name or 'torch and transformers'}: "
            f"install the model-zoo extra with `{INSTALL_HINT}`"
        ) from None
    try:
        import tvm
        from tvm import relax
        from tvm.relax.frontend.torch import from_exported_program
    except ImportError as exc:
        raise ZooUnavailable(
            f"aliaslog.relax.export needs apache-tvm ({exc.name}): `pip install apache-tvm`"
            f" (and `{INSTALL_HINT}` for torch and transformers)"
        ) from None
    transformers.logging.set_verbosity_error()
    return Zoo(torch, transformers, tvm, relax, from_exported_program)


def _wrap(zoo: Zoo, model: Any, call: Callable[[Any, Any], Any], *, image: bool) -> Any:
    """Wrap an HF model so the exported forward takes one named tensor and returns a tensor."""

    class TokenModel(zoo.torch.nn.Module):  # type: ignore[name-defined,misc]
        """Returns a plain tensor because from_exported_program cannot import HF output objects."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any) -> Any:
            return call(self.model, input_ids)

    class ImageModel(TokenModel):
        """Same wrapper; the argument name becomes the Relax parameter name."""

        def forward(self, pixel_values: Any) -> Any:
            return call(self.model, pixel_values)

    return (ImageModel if image else TokenModel)().eval()


def _token_ids(zoo: Zoo, vocab: int) -> Any:
    """Deterministic example token ids; they shape the trace but not the written structure."""
    gen = zoo.torch.Generator().manual_seed(SEED)
    return zoo.torch.randint(0, vocab, (1, SEQ_LEN), generator=gen, dtype=zoo.torch.int64)


def _image(zoo: Zoo) -> Any:
    """Deterministic example image batch for the vision models."""
    gen = zoo.torch.Generator().manual_seed(SEED)
    return zoo.torch.randn(1, 3, IMAGE_SIZE, IMAGE_SIZE, generator=gen)


def build_bert(zoo: Zoo) -> ModelSpec:
    """BERT encoder, 2 layers, hidden 64; position/token-type buffers become constants."""
    tf = zoo.transformers
    cfg = tf.BertConfig(
        vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=128, max_position_embeddings=32, type_vocab_size=2,
        attn_implementation="eager",
    )
    model = tf.BertModel(cfg, add_pooling_layer=False).eval()
    wrapped = _wrap(zoo, model, lambda m, ids: m(input_ids=ids).last_hidden_state, image=False)
    summary = "BertModel(layers=2, hidden=64, heads=2, ffn=128, vocab=128, eager attention)"
    return ModelSpec("bert", wrapped, (_token_ids(zoo, 128),), summary)


def build_vit(zoo: Zoo) -> ModelSpec:
    """ViT encoder, 2 layers, hidden 64, 32x32 images in 8x8 patches."""
    tf = zoo.transformers
    cfg = tf.ViTConfig(
        image_size=IMAGE_SIZE, patch_size=8, num_channels=3, hidden_size=64,
        num_hidden_layers=2, num_attention_heads=2, intermediate_size=128,
        attn_implementation="eager",
    )
    model = tf.ViTModel(cfg, add_pooling_layer=False).eval()
    wrapped = _wrap(zoo, model, lambda m, px: m(pixel_values=px).last_hidden_state, image=True)
    summary = "ViTModel(layers=2, hidden=64, heads=2, ffn=128, image=32x32, patch=8, eager)"
    return ModelSpec("vit", wrapped, (_image(zoo),), summary)


def build_resnet(zoo: Zoo) -> ModelSpec:
    """ResNet with basic blocks [1, 1] and widths 16/32; eval-mode batch norm statistics."""
    tf = zoo.transformers
    cfg = tf.ResNetConfig(
        num_channels=3, embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1],
        layer_type="basic", hidden_act="relu",
    )
    model = tf.ResNetModel(cfg).eval()
    wrapped = _wrap(zoo, model, lambda m, px: m(pixel_values=px).last_hidden_state, image=True)
    summary = "ResNetModel(basic blocks depths=[1,1], widths=[16,32], stem=16, image=32x32)"
    return ModelSpec("resnet", wrapped, (_image(zoo),), summary)


def build_gpt2(zoo: Zoo) -> ModelSpec:
    """GPT-2, 2 layers, n_embd 64; the all-ones mask keeps the graph buildable by TVM 0.27."""
    # Without an attention mask transformers 5 adds a packed-sequence check (cumsum and
    # `equal` on bool tensors) whose LLVM codegen fails in apache-tvm 0.27
    # (`t.MatchesCode(kDLFloat)`); an all-ones mask skips it and the attention stays causal.
    torch, tf = zoo.torch, zoo.transformers
    cfg = tf.GPT2Config(
        vocab_size=128, n_positions=32, n_embd=64, n_layer=2, n_head=2,
        bos_token_id=127, eos_token_id=127, use_cache=False, attn_implementation="eager",
    )
    model = tf.GPT2Model(cfg).eval()
    wrapped = _wrap(
        zoo, model,
        lambda m, ids: m(
            input_ids=ids, attention_mask=torch.ones_like(ids), use_cache=False
        ).last_hidden_state,
        image=False,
    )
    summary = "GPT2Model(layers=2, n_embd=64, heads=2, vocab=128, positions=32, eager, ones mask)"
    return ModelSpec("gpt2", wrapped, (_token_ids(zoo, 128),), summary)


BUILDERS: dict[str, Callable[[Zoo], ModelSpec]] = {
    "bert": build_bert,
    "vit": build_vit,
    "resnet": build_resnet,
    "gpt2": build_gpt2,
}


def to_relax(zoo: Zoo, spec: ModelSpec) -> tuple[Any, list[Any]]:
    """torch.export then from_exported_program, with weights split off so files hold structure."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with zoo.torch.no_grad():
            ep = zoo.torch.export.export(spec.module, spec.args)
        mod = zoo.from_exported_program(
            ep, keep_params_as_input=True, unwrap_unit_return_tuple=True
        )
    mod, params = zoo.relax.frontend.detach_params(mod)
    return mod, list(params.get("main", []))


def metadata_constants(zoo: Zoo, mod: Any, text: str) -> list[Any]:
    """Tensor constants that `script()` prints as metadata references, in their index order."""
    # The printer numbers them by first appearance, i.e. a pre-order walk; the count is checked
    # against the text here and the values by the reload in `verify_file`.
    import tvm_ffi

    seen: list[Any] = []

    def visit(node: Any) -> None:
        ty = node.ty
        if isinstance(ty, zoo.relax.TensorType) and ty.ndim != 0:
            if not any(node.same_as(s) for s in seen):
                seen.append(node)

    for _gv, func in sorted(mod.functions.items(), key=lambda kv: kv[0].name_hint):
        tvm_ffi.structural_walk(func, [(zoo.tvm.ir.GenericConst, visit)], order="pre")
    refs = {int(m) for m in _META_REF.findall(text)}
    if refs != set(range(len(seen))):
        raise RuntimeError(
            f"metadata references {sorted(refs)} do not match the {len(seen)} tensor constants"
        )
    return seen


def _const_line(const: Any) -> str:
    """An exact, compact expression for a constant (explicit dtype: R.const narrows int64)."""
    arr = const.value.numpy()
    data = base64.b64encode(arr.tobytes()).decode("ascii")
    return (
        f'    R.const(np.frombuffer(base64.b64decode("{data}"), dtype="{arr.dtype}")'
        f'.reshape({tuple(arr.shape)!r}), "{arr.dtype}"),'
    )


def versions() -> dict[str, str]:
    """Installed versions of the tools that shaped the output, for the file header."""
    out = {}
    for dist in ("torch", "transformers", "apache-tvm"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = "unknown"
    return out


def render(zoo: Zoo, spec: ModelSpec, mod: Any) -> str:
    """The fixture file text: header, real imports, optional metadata dict, then the module."""
    text = mod.script(name="Module")
    consts = metadata_constants(zoo, mod, text)
    body = [
        line for line in text.splitlines()
        if not line.startswith("# from tvm.script import")
        and not line.startswith("# Metadata omitted")
    ]
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    ver = versions()
    cmd = f"python -m aliaslog.relax.export -o tests/data/relax --models {spec.name}"
    head = [
        "# ruff: noqa",
        "# Generated by aliaslog.relax.export; do not edit. Regenerate with `make fixtures` or",
        f"#   {cmd}",
        f"# Model: {spec.summary},",
        f"#   random weights (torch.manual_seed({SEED})). Weights are inputs of `main`",
        "#   (keep_params_as_input=True); only model buffers are constants (`metadata`).",
        f"# Versions: torch {ver['torch']}, transformers {ver['transformers']}, "
        f"apache-tvm {ver['apache-tvm']}.",
    ]
    imports = []
    if consts:
        imports += ["import base64", "", "import numpy as np"]
    imports += ["from tvm.script import ir as I", "from tvm.script import relax as R"]
    meta: list[str] = []
    if consts:
        meta = ["", f'metadata = {{"{META_KEY}": [']
        meta += [_const_line(c) for c in consts]
        meta += ["]}"]
    return "\n".join(head + [""] + imports + meta + ["", ""] + body) + "\n"


def count_bindings(mod: Any) -> int:
    """Bindings of `main`, reported so a changed import is visible at a glance."""
    return sum(len(block.bindings) for block in mod["main"].body.blocks)


def verify_file(zoo: Zoo, path: Path, mod: Any) -> None:
    """Reload the written file the way tests do and insist it is the module we imported."""
    import tvm_ffi

    loaded = runpy.run_path(str(path))["Module"]
    zoo.relax.analysis.well_formed(loaded)
    if not tvm_ffi.structural_equal(loaded, mod, map_free_vars=True):
        raise RuntimeError(f"{path}: reloaded module differs from the imported one")


def check_numerics(zoo: Zoo, spec: ModelSpec, mod: Any, params: list[Any]) -> float:
    """Build with LLVM and compare with torch on the example input, returning the max error."""
    import numpy as np

    tvm, relax = zoo.tvm, zoo.relax
    with zoo.torch.no_grad():
        want = spec.module(*spec.args).numpy()
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    inputs = [tvm.runtime.tensor(a.numpy()) for a in spec.args]
    got = vm["main"](*inputs, *params).numpy()
    err = float(np.max(np.abs(got - want)))
    if not err < 1e-4:
        raise RuntimeError(f"{spec.name}: TVM output differs from torch by {err}")
    return err


def export_model(zoo: Zoo, name: str, out_dir: Path, check: bool = False) -> Exported:
    """Build, export, write and verify one fixture; seeds are reset so each is reproducible."""
    start = time.perf_counter()
    zoo.torch.manual_seed(SEED)
    spec = BUILDERS[name](zoo)
    mod, params = to_relax(zoo, spec)
    path = out_dir / f"{name}.py"
    path.write_text(render(zoo, spec, mod))
    verify_file(zoo, path, mod)
    if check:
        err = check_numerics(zoo, spec, mod, params)
        print(f"{name}: max |tvm - torch| = {err:.2e}")
    seconds = time.perf_counter() - start
    return Exported(name, path, path.stat().st_size, count_bindings(mod), seconds)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options; defaults export every model."""
    ap = argparse.ArgumentParser(
        prog="python -m aliaslog.relax.export",
        description="Write TVMScript Relax fixtures of small random-weight models (needs "
        f"the zoo extra: {INSTALL_HINT}).",
    )
    ap.add_argument("-o", "--out", type=Path, required=True, help="output directory")
    ap.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    ap.add_argument(
        "--check", action="store_true",
        help="also build each model with LLVM and compare its output with torch",
    )
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry: a missing dependency is one line on stderr and exit status 2, no traceback."""
    args = parse_args(argv)
    try:
        zoo = import_zoo()
    except ZooUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.models:
        res = export_model(zoo, name, args.out, check=args.check)
        print(
            f"{res.name}: {res.path} ({res.size / 1024:.1f} KiB, {res.bindings} bindings, "
            f"{res.seconds:.1f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
