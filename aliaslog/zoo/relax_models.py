"""Relax model zoo: small random-weight HF models as TVMScript, before and after lowering.

Run `aliaslog zoo relax -o DIR [--models NAME,...] [--check]` with the `zoo` extra installed
(`pip install -e '.[zoo]'`: torch and transformers) plus apache-tvm. Each model is built from a
tiny transformers config with fixed seeds, exported with `torch.export`, imported with
`tvm.relax.frontend.torch.from_exported_program` keeping the parameters as function inputs, and
written as `NAME.py`; with `lowered=True` the module at aliaslog's `lowered` extraction point
(`extractor.relax_load.to_point`) is written as `NAME.lowered.py`. `DIR/zoo.json` records, per
model, the status, the files, the seconds of each stage, the error of a failed stage and the
tool versions. One failing model is a manifest row and one line on stderr; the other models are
still written. The test fixtures (`aliaslog.relax.export`, `make fixtures`) go through the same
specs and writer.

Every file is self-contained Python that defines `Module` (the `mod.script()` text with real
import lines) and opens with `workloads.MODULE_MARKER`, the line that lets `aliaslog batch` run
it when it finds it in a directory. The printer of apache-tvm 0.27 crashes on `show_meta=True`,
so the tensor constants that `script()` prints as `metadata["ir.GenericConst"][i]` (model
buffers such as BERT's position ids or ResNet's batch-norm statistics) are written to a
`metadata` dict at the top of the file, base64-encoded; the TVMScript parser resolves the name
from the file's globals. A file is written to a temporary name, run as a module (what
`runpy.run_path` does) and compared with the module it came from before it is renamed into
place, so a wrong or partial file never appears.

Lowered modules do not always round-trip exactly: `take` with int32 indices into an
int64-shaped buffer yields PrimFunc read regions `W[idx[i], j]` whose point range has an int32
`min` and an int64 `extent` (1). TVMScript cannot spell that mixed dtype; the parser gives the
extent the min's dtype. Such a file is accepted only if it equals the module once those
extents are cast to their min's dtype, and the manifest says so (`roundtrip: "normalized"`).
"""

from __future__ import annotations

import base64
import contextlib
import importlib.metadata
import itertools
import json
import os
import re
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any, TextIO

from aliaslog.loading import write_atomically
from aliaslog.workloads import MODULE_MARKER, zoo_suffix

SEED = 0
SEQ_LEN = 16
IMAGE_SIZE = 32
INSTALL_HINT = "pip install -e '.[zoo]'"
META_KEY = "ir.GenericConst"
MANIFEST = "zoo.json"
MANIFEST_FORMAT = 1
_META_REF = re.compile(r'metadata\["ir\.GenericConst"\]\[(\d+)\]')
_IMPORT_COMMENT = re.compile(r"# ((?:from \S+ )?import .+)")
_NATIVE_STAMP = re.compile(r"^\[\d\d:\d\d:\d\d\] ")
_RUN_IDS = itertools.count()


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
class Provenance:
    """Who wrote a file and how to regenerate it, for the two header lines that say so."""

    generator: str
    how: str
    command: str  # formatted with the model name


ZOO_PROVENANCE = Provenance(
    "aliaslog.zoo.relax_models", "`aliaslog zoo relax -o DIR`",
    "aliaslog zoo relax -o DIR --models {name}",
)


def import_zoo() -> Zoo:
    """Import the heavy optional dependencies lazily, turning absence into ZooUnavailable."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise ZooUnavailable(
            f"the Relax model zoo needs {exc.name or 'torch and transformers'}: "
            f"install the model-zoo extra with `{INSTALL_HINT}`"
        ) from None
    try:
        import tvm
        from tvm import relax
        from tvm.relax.frontend.torch import from_exported_program
    except ImportError as exc:
        raise ZooUnavailable(
            f"the Relax model zoo needs apache-tvm ({exc.name}): `pip install apache-tvm`"
            f" (and `{INSTALL_HINT}` for torch and transformers)"
        ) from None
    transformers.logging.set_verbosity_error()
    return Zoo(torch, transformers, tvm, relax, from_exported_program)


def torch_to_relax(zoo: Zoo, spec: ModelSpec) -> tuple[Any, list[Any]]:
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


@dataclass(frozen=True)
class ModelDef:
    """One zoo entry: how to build the model and how to bring it into Relax (swappable in tests)."""

    name: str
    build: Callable[[Zoo], ModelSpec]
    to_relax: Callable[[Zoo, ModelSpec], tuple[Any, list[Any]]] = torch_to_relax


_REGISTRY: dict[str, ModelDef] = {}


def _model(name: str) -> Callable[[Callable[[Zoo], ModelSpec]], Callable[[Zoo], ModelSpec]]:
    """Register a torch builder under `name`, reseeding torch first so weights are reproducible."""

    def register(build: Callable[[Zoo], ModelSpec]) -> Callable[[Zoo], ModelSpec]:
        def seeded(zoo: Zoo) -> ModelSpec:
            zoo.torch.manual_seed(SEED)
            return build(zoo)

        _REGISTRY[name] = ModelDef(name, seeded)
        return build

    return register


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


def _hidden(m: Any, **kwargs: Any) -> Any:
    """`last_hidden_state` of an HF model call: the one tensor every zoo model returns."""
    return m(**kwargs).last_hidden_state


def _masked_lm(zoo: Zoo, name: str, model: Any, summary: str) -> ModelSpec:
    """A decoder called with an all-ones mask and no cache, on token ids."""
    # Without an attention mask transformers 5 adds a packed-sequence check (cumsum and
    # `equal` on bool tensors) whose LLVM codegen fails in apache-tvm 0.27
    # (`t.MatchesCode(kDLFloat)`); an all-ones mask skips it and the attention stays causal.
    ones = zoo.torch.ones_like
    wrapped = _wrap(
        zoo, model.eval(),
        lambda m, ids: _hidden(m, input_ids=ids, attention_mask=ones(ids), use_cache=False),
        image=False,
    )
    return ModelSpec(name, wrapped, (_token_ids(zoo, 128),), summary)


@_model("bert")
def build_bert(zoo: Zoo) -> ModelSpec:
    """BERT encoder, 2 layers, hidden 64; position/token-type buffers become constants."""
    tf = zoo.transformers
    cfg = tf.BertConfig(
        vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=128, max_position_embeddings=32, type_vocab_size=2,
        attn_implementation="eager",
    )
    model = tf.BertModel(cfg, add_pooling_layer=False).eval()
    wrapped = _wrap(zoo, model, lambda m, ids: _hidden(m, input_ids=ids), image=False)
    summary = "BertModel(layers=2, hidden=64, heads=2, ffn=128, vocab=128, eager attention)"
    return ModelSpec("bert", wrapped, (_token_ids(zoo, 128),), summary)


@_model("vit")
def build_vit(zoo: Zoo) -> ModelSpec:
    """ViT encoder, 2 layers, hidden 64, 32x32 images in 8x8 patches."""
    tf = zoo.transformers
    cfg = tf.ViTConfig(
        image_size=IMAGE_SIZE, patch_size=8, num_channels=3, hidden_size=64,
        num_hidden_layers=2, num_attention_heads=2, intermediate_size=128,
        attn_implementation="eager",
    )
    model = tf.ViTModel(cfg, add_pooling_layer=False).eval()
    wrapped = _wrap(zoo, model, lambda m, px: _hidden(m, pixel_values=px), image=True)
    summary = "ViTModel(layers=2, hidden=64, heads=2, ffn=128, image=32x32, patch=8, eager)"
    return ModelSpec("vit", wrapped, (_image(zoo),), summary)


@_model("resnet")
def build_resnet(zoo: Zoo) -> ModelSpec:
    """ResNet with basic blocks [1, 1] and widths 16/32; eval-mode batch norm statistics."""
    tf = zoo.transformers
    cfg = tf.ResNetConfig(
        num_channels=3, embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1],
        layer_type="basic", hidden_act="relu",
    )
    model = tf.ResNetModel(cfg).eval()
    wrapped = _wrap(zoo, model, lambda m, px: _hidden(m, pixel_values=px), image=True)
    summary = "ResNetModel(basic blocks depths=[1,1], widths=[16,32], stem=16, image=32x32)"
    return ModelSpec("resnet", wrapped, (_image(zoo),), summary)


@_model("gpt2")
def build_gpt2(zoo: Zoo) -> ModelSpec:
    """GPT-2, 2 layers, n_embd 64; the all-ones mask keeps the graph buildable by TVM 0.27."""
    tf = zoo.transformers
    cfg = tf.GPT2Config(
        vocab_size=128, n_positions=32, n_embd=64, n_layer=2, n_head=2,
        bos_token_id=127, eos_token_id=127, use_cache=False, attn_implementation="eager",
    )
    summary = "GPT2Model(layers=2, n_embd=64, heads=2, vocab=128, positions=32, eager, ones mask)"
    return _masked_lm(zoo, "gpt2", tf.GPT2Model(cfg), summary)


@_model("mobilenetv2")
def build_mobilenetv2(zoo: Zoo) -> ModelSpec:
    """MobileNetV2 at depth multiplier 0.35: depthwise convs, ReLU6 (clip) and residual adds."""
    tf = zoo.transformers
    cfg = tf.MobileNetV2Config(
        num_channels=3, image_size=IMAGE_SIZE, depth_multiplier=0.35, min_depth=8,
        finegrained_output=False, hidden_act="relu6",
    )
    model = tf.MobileNetV2Model(cfg, add_pooling_layer=False).eval()
    wrapped = _wrap(zoo, model, lambda m, px: _hidden(m, pixel_values=px), image=True)
    summary = "MobileNetV2Model(depth_multiplier=0.35, relu6, tf padding, image=32x32)"
    return ModelSpec("mobilenetv2", wrapped, (_image(zoo),), summary)


@_model("convnext")
def build_convnext(zoo: Zoo) -> ModelSpec:
    """ConvNeXt with stages [1, 1] and widths 16/32: depthwise 7x7, channels-last norms."""
    tf = zoo.transformers
    cfg = tf.ConvNextConfig(
        num_channels=3, patch_size=4, num_stages=2, hidden_sizes=[16, 32], depths=[1, 1],
        image_size=IMAGE_SIZE,
    )
    model = tf.ConvNextModel(cfg).eval()
    wrapped = _wrap(zoo, model, lambda m, px: _hidden(m, pixel_values=px), image=True)
    summary = "ConvNextModel(depths=[1,1], widths=[16,32], patch=4, layer scale, image=32x32)"
    return ModelSpec("convnext", wrapped, (_image(zoo),), summary)


@_model("t5-encoder")
def build_t5_encoder(zoo: Zoo) -> ModelSpec:
    """T5 encoder, 2 layers, d_model 64: RMS norm and bucketed relative position bias."""
    torch, tf = zoo.torch, zoo.transformers
    cfg = tf.T5Config(
        vocab_size=128, d_model=64, d_kv=32, d_ff=128, num_layers=2, num_heads=2,
        relative_attention_num_buckets=8, relative_attention_max_distance=16,
        feed_forward_proj="relu", use_cache=False, is_encoder_decoder=False,
        attn_implementation="eager",
    )
    model = tf.T5EncoderModel(cfg).eval()
    wrapped = _wrap(
        zoo, model,
        lambda m, ids: _hidden(m, input_ids=ids, attention_mask=torch.ones_like(ids)),
        image=False,
    )
    summary = "T5EncoderModel(layers=2, d_model=64, heads=2, d_kv=32, ff=128 relu, buckets=8)"
    return ModelSpec("t5-encoder", wrapped, (_token_ids(zoo, 128),), summary)


@_model("llama")
def build_llama(zoo: Zoo) -> ModelSpec:
    """Llama, 2 layers, hidden 64, 4 query / 2 key-value heads: RoPE, RMS norm, SwiGLU, GQA."""
    tf = zoo.transformers
    cfg = tf.LlamaConfig(
        vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32,
        use_cache=False, attn_implementation="eager",
    )
    summary = "LlamaModel(layers=2, hidden=64, heads=4, kv_heads=2, ffn=128, vocab=128, eager)"
    return _masked_lm(zoo, "llama", tf.LlamaModel(cfg), summary)


@_model("distilbert")
def build_distilbert(zoo: Zoo) -> ModelSpec:
    """DistilBERT, 2 layers, dim 64: BERT without token types, fused position buffer."""
    tf = zoo.transformers
    cfg = tf.DistilBertConfig(
        vocab_size=128, dim=64, n_layers=2, n_heads=2, hidden_dim=128,
        max_position_embeddings=32, attn_implementation="eager",
    )
    model = tf.DistilBertModel(cfg).eval()
    wrapped = _wrap(zoo, model, lambda m, ids: _hidden(m, input_ids=ids), image=False)
    summary = "DistilBertModel(layers=2, dim=64, heads=2, ffn=128, vocab=128, eager)"
    return ModelSpec("distilbert", wrapped, (_token_ids(zoo, 128),), summary)


@_model("swin")
def build_swin(zoo: Zoo) -> ModelSpec:
    """Swin, stages [1, 1], embed 16, window 4: shifted windows and relative position bias."""
    tf = zoo.transformers
    cfg = tf.SwinConfig(
        image_size=IMAGE_SIZE, patch_size=4, num_channels=3, embed_dim=16, depths=[1, 1],
        num_heads=[1, 2], window_size=4, mlp_ratio=2.0, attn_implementation="eager",
    )
    model = tf.SwinModel(cfg, add_pooling_layer=False).eval()
    wrapped = _wrap(zoo, model, lambda m, px: _hidden(m, pixel_values=px), image=True)
    summary = "SwinModel(depths=[1,1], embed=16, heads=[1,2], window=4, mlp_ratio=2, image=32)"
    return ModelSpec("swin", wrapped, (_image(zoo),), summary)


@_model("qwen2")
def build_qwen2(zoo: Zoo) -> ModelSpec:
    """Qwen2, 2 layers, hidden 64, 4 query / 2 key-value heads: Llama with q/k/v biases."""
    tf = zoo.transformers
    cfg = tf.Qwen2Config(
        vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32,
        use_cache=False, use_sliding_window=False, attn_implementation="eager",
    )
    summary = "Qwen2Model(layers=2, hidden=64, heads=4, kv_heads=2, ffn=128, vocab=128, eager)"
    return _masked_lm(zoo, "qwen2", tf.Qwen2Model(cfg), summary)


MODELS: Mapping[str, ModelDef] = MappingProxyType(_REGISTRY)
RELAX_MODELS: tuple[str, ...] = tuple(_REGISTRY)


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
    """Installed versions of the tools that shaped the output, for headers and the manifest."""
    out = {}
    for dist in ("torch", "transformers", "apache-tvm"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = "unknown"
    return out


def render(
    zoo: Zoo, spec: ModelSpec, mod: Any, provenance: Provenance = ZOO_PROVENANCE,
    lowered: bool = False,
) -> str:
    """The file text: header, the printer's imports made real, optional metadata, the module."""
    text = mod.script(name="Module")
    consts = metadata_constants(zoo, mod, text)
    lines = text.splitlines()
    imports: list[str] = []
    while lines and (m := _IMPORT_COMMENT.fullmatch(lines[0])):
        imports.append(m.group(1))
        lines.pop(0)
    body = [line for line in lines if not line.startswith("# Metadata omitted")]
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    if any(not re.match(r"(from|import) tvm[. ]", line) for line in imports):
        raise RuntimeError(f"unexpected import in the printed module: {imports}")
    ver = versions()
    head = [
        MODULE_MARKER,
        "# ruff: noqa",
        f"# Generated by {provenance.generator}; do not edit. Regenerate with {provenance.how} or",
        f"#   {provenance.command.format(name=spec.name)}",
        f"# Model: {spec.summary},",
        f"#   random weights (torch.manual_seed({SEED})). Weights are inputs of `main`",
        "#   (keep_params_as_input=True); only model buffers are constants (`metadata`).",
    ]
    if lowered:
        head += [
            f"# Lowered: {spec.name}.py at aliaslog's `lowered` extraction point",
            "#   (extractor.relax_load.to_point: relax.build's pipeline up to KillAfterLastUse).",
        ]
    head.append(
        f"# Versions: torch {ver['torch']}, transformers {ver['transformers']}, "
        f"apache-tvm {ver['apache-tvm']}."
    )
    if consts:
        imports = ["import base64", "", "import numpy as np", *imports]
    meta: list[str] = []
    if consts:
        meta = ["", f'metadata = {{"{META_KEY}": [']
        meta += [_const_line(c) for c in consts]
        meta += ["]}"]
    return "\n".join(head + [""] + imports + meta + ["", ""] + body) + "\n"


def count_bindings(mod: Any) -> int:
    """Bindings of `main`, reported so a changed import is visible at a glance."""
    return sum(len(block.bindings) for block in mod["main"].body.blocks)


def _normalize_point_ranges(zoo: Zoo, mod: Any) -> tuple[Any, int]:
    """Cast constant range extents to their min's dtype, the form TVMScript can express."""
    import tvm_ffi

    tirx = zoo.tvm.tirx
    changed = 0

    def fix(rng: Any) -> Any:
        nonlocal changed
        lo, ext = rng.min, rng.extent
        lo_dtype = str(lo.ty.dtype)
        if isinstance(ext, tirx.IntImm) and str(ext.ty.dtype) != lo_dtype:
            changed += 1
            return zoo.tvm.ir.Range.from_min_extent(lo, tirx.IntImm(lo_dtype, int(ext.value)))
        return rng

    return tvm_ffi.structural_map(mod, (zoo.tvm.ir.Range, fix)), changed


@dataclass(frozen=True)
class Roundtrip:
    """How a reloaded file matched its module: exactly, or after `_normalize_point_ranges`."""

    kind: str  # "exact" or "normalized"
    note: str | None = None


def run_file(path: Path) -> dict[str, Any]:
    """Run a file as a fresh module and return its globals, as `runpy.run_path` does."""
    # runpy's own frames are frozen (`<frozen runpy>`, no such file), and TVMScript calls
    # inspect.stack() once per PrimFunc; each frozen frame then makes inspect.getmodule rescan
    # sys.modules, which made reloading a lowered module 2-3x slower than this.
    module = ModuleType(f"_aliaslog_zoo_{os.getpid()}_{next(_RUN_IDS)}")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module
    try:
        code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
        exec(code, module.__dict__)
    finally:
        del sys.modules[module.__name__]
    return dict(module.__dict__)


def verify_file(zoo: Zoo, path: Path, mod: Any) -> Roundtrip:
    """Reload the written file as a user would and insist it is the module it was printed from."""
    import tvm_ffi

    loaded = run_file(path)["Module"]
    zoo.relax.analysis.well_formed(loaded)
    if tvm_ffi.structural_equal(loaded, mod, map_free_vars=True):
        return Roundtrip("exact")
    normalized, changed = _normalize_point_ranges(zoo, mod)
    if changed and tvm_ffi.structural_equal(loaded, normalized, map_free_vars=True):
        return Roundtrip("normalized", (
            f"{changed} PrimFunc range extent(s) have a dtype other than their min's (an "
            "int32 `take` index into an int64-shaped buffer); TVMScript prints both alike and "
            "the reload uses the min's dtype; equal otherwise"))
    mismatch = tvm_ffi.get_first_structural_mismatch(loaded, mod, map_free_vars=True)
    where = f" (first mismatch at {mismatch[0]})" if mismatch else ""
    raise RuntimeError(f"{path.name}: reloaded module differs from the one written{where}")


def check_numerics(zoo: Zoo, spec: ModelSpec, mod: Any, params: list[Any]) -> dict[str, float]:
    """Build with LLVM and compare with torch on the example input, failing on a real mismatch."""
    # The tolerance shrinks with the output: random-init MobileNetV2 ends near 1e-25, where an
    # absolute bound alone would accept anything.
    import numpy as np

    tvm, relax = zoo.tvm, zoo.relax
    with zoo.torch.no_grad():
        want = spec.module(*spec.args).numpy()
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    inputs = [tvm.runtime.tensor(a.numpy()) for a in spec.args]
    got = vm["main"](*inputs, *params).numpy()
    err = float(np.max(np.abs(got - want)))
    scale = float(np.max(np.abs(want)))
    if not err <= 1e-4 * min(1.0, scale):
        raise RuntimeError(f"{spec.name}: TVM output differs from torch by {err} "
                           f"(largest output magnitude {scale})")
    return {"max_abs_error": err, "max_abs_output": scale}


@dataclass
class ZooFile:
    """One written file of a model, as the manifest lists it."""

    path: Path
    bytes: int
    bindings: int
    roundtrip: Roundtrip

    def to_json(self) -> dict[str, Any]:
        """Manifest form; the path is relative to the zoo directory."""
        out: dict[str, Any] = {"bytes": self.bytes, "main_bindings": self.bindings,
                               "roundtrip": self.roundtrip.kind}
        if self.roundtrip.note:
            out["roundtrip_note"] = self.roundtrip.note
        return out


@dataclass
class ZooEntry:
    """The outcome of one model: a manifest row and what the CLI prints."""

    name: str
    summary: str = ""
    status: str = "ok"  # "ok" or "failed"
    files: list[ZooFile] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    error: dict[str, str] | None = None
    numerics: dict[str, float] | None = None
    native_stderr: list[str] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when every stage of the model succeeded."""
        return self.status == "ok"

    def describe(self) -> str:
        """One human line per model for the command-line report."""
        total = sum(self.seconds.values())
        if not self.ok:
            stage = (self.error or {}).get("stage", "?")
            return f"{self.name}: FAILED at {stage} ({total:.1f} s)"
        files = ", ".join(
            f"{f.path.name} {f.bytes / 1024:.1f} KiB"
            + ("" if f.roundtrip.kind == "exact" else f" [{f.roundtrip.kind}]")
            for f in self.files
        )
        return f"{self.name}: {files} ({total:.1f} s)"

    def to_json(self) -> dict[str, Any]:
        """The manifest row: status, files, seconds per stage, error and versions."""
        row: dict[str, Any] = {
            "status": self.status,
            "summary": self.summary,
            "files": {f.path.name: f.to_json() for f in self.files},
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "error": self.error,
            "versions": self.versions,
        }
        if self.numerics is not None:
            row["numerics"] = self.numerics
        if self.native_stderr:
            row["native_stderr"] = self.native_stderr
        return row


def _one_line(exc: BaseException) -> str:
    """The informative line of an exception message (TVM puts a traceback before it)."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    if not lines:
        return type(exc).__name__
    if lines[0].startswith("Traceback") or lines[0].startswith("File "):
        return lines[-1]
    return lines[0]


@contextlib.contextmanager
def _native_stderr() -> Iterator[list[str]]:
    """Collect what TVM's C++ side writes to fd 2, so its warnings land in the manifest."""
    out: list[str] = []
    try:
        saved = os.dup(2)
    except OSError:
        yield out
        return
    with tempfile.TemporaryFile() as tmp:
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        os.dup2(tmp.fileno(), 2)
        try:
            yield out
        finally:
            with contextlib.suppress(Exception):
                sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            text = tmp.read().decode("utf-8", errors="replace")
            for line in text.splitlines():
                line = _NATIVE_STAMP.sub("", line).strip()
                if line and line not in out:
                    out.append(line)


def _atomic_write(path: Path, text: str, check: Callable[[Path], Any] | None = None) -> Any:
    """Write through a temporary file beside `path`, check it there, then rename: never a
    partial or unchecked file. Returns what `check` returned."""
    result: list[Any] = [None]

    def write(tmp: str) -> None:
        Path(tmp).write_text(text, encoding="utf-8")
        if check is not None:
            result[0] = check(Path(tmp))

    write_atomically(path, write)
    return result[0]


def _write_verified(zoo: Zoo, path: Path, text: str, mod: Any) -> ZooFile:
    """Write a module's file, reloading and comparing it before it takes its final name."""
    roundtrip = _atomic_write(path, text, lambda tmp: verify_file(zoo, tmp, mod))
    return ZooFile(path, path.stat().st_size, count_bindings(mod), roundtrip)


def _file_names(name: str) -> tuple[str, str]:
    """The files a model owns in the zoo directory: before and after lowering."""
    return f"{name}{zoo_suffix('relax', 'input')}", f"{name}{zoo_suffix('relax', 'lowered')}"


def export_model(
    zoo: Zoo, model: ModelDef, out_dir: Path, *, lowered: bool = True,
    provenance: Provenance = ZOO_PROVENANCE, check: bool = False,
) -> ZooEntry:
    """Build, import, write and (optionally) lower one model, recording the failing stage."""
    from extractor.relax_load import to_point

    entry = ZooEntry(model.name, versions=_manifest_versions())
    stage = "build"

    def timed(name: str, fn: Callable[[], Any]) -> Any:
        nonlocal stage
        stage = name
        start = time.perf_counter()
        result = fn()
        entry.seconds[name] = time.perf_counter() - start
        return result

    with _native_stderr() as native:
        try:
            spec = timed("build", lambda: model.build(zoo))
            entry.summary = spec.summary
            mod, params = timed("import", lambda: model.to_relax(zoo, spec))
            source, target = (out_dir / n for n in _file_names(model.name))
            text = timed("render", lambda: render(zoo, spec, mod, provenance))
            entry.files.append(timed("write", lambda: _write_verified(zoo, source, text, mod)))
            if check:
                entry.numerics = timed("check", lambda: check_numerics(zoo, spec, mod, params))
            if lowered:
                low = timed("lower", lambda: to_point(mod, "lowered"))
                text = timed("render_lowered", lambda: render(zoo, spec, low, provenance, True))
                entry.files.append(
                    timed("write_lowered", lambda: _write_verified(zoo, target, text, low)))
        except Exception as exc:  # noqa: BLE001 - one model's failure must not stop the zoo
            entry.status = "failed"
            entry.error = {"stage": stage, "type": type(exc).__name__, "message": _one_line(exc),
                           "detail": str(exc)[-4000:]}
    entry.native_stderr = native[:20]
    written = {f.path.name for f in entry.files}
    for stale in _file_names(model.name):  # keep the directory in step with the manifest
        if stale not in written:
            (out_dir / stale).unlink(missing_ok=True)
    return entry


def _manifest_versions() -> dict[str, str]:
    """The versions the manifest records for each row."""
    ver = versions()
    return {"torch": ver["torch"], "transformers": ver["transformers"], "tvm": ver["apache-tvm"]}


def export_models(
    out_dir: str | os.PathLike[str], names: Sequence[str] | None = None, *,
    lowered: bool = True, zoo: Zoo | None = None, models: Mapping[str, ModelDef] | None = None,
    provenance: Provenance = ZOO_PROVENANCE, check: bool = False, err: TextIO | None = None,
) -> list[ZooEntry]:
    """Export each named model in turn; failures become entries and one line on `err`."""
    models = MODELS if models is None else models
    names = list(models) if names is None else list(names)
    unknown = [n for n in names if n not in models]
    if unknown:
        raise ValueError(f"unknown model(s) {', '.join(unknown)}; choose from {', '.join(models)}")
    if zoo is None:
        zoo = import_zoo()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for name in names:
        entry = export_model(zoo, models[name], out, lowered=lowered, provenance=provenance,
                             check=check)
        if entry.error is not None:
            print(f"aliaslog zoo: {name}: failed at {entry.error['stage']}: "
                  f"{entry.error['type']}: {entry.error['message']}", file=err or sys.stderr)
        entries.append(entry)
    return entries


def _previous_rows(path: Path) -> dict[str, Any]:
    """Rows of an existing manifest, kept for models this run does not touch."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    rows = data.get("models") if isinstance(data, dict) else None
    return dict(rows) if isinstance(rows, dict) else {}


def write_relax_zoo(
    out_dir: str | os.PathLike[str], names: Sequence[str] | None = None, lowered: bool = True,
    *, zoo: Zoo | None = None, models: Mapping[str, ModelDef] | None = None,
    check: bool = False, err: TextIO | None = None,
) -> list[ZooEntry]:
    """Write the zoo's TVMScript files and `zoo.json`; raises ZooUnavailable without the extra."""
    entries = export_models(out_dir, names, lowered=lowered, zoo=zoo, models=models,
                            check=check, err=err)
    path = Path(out_dir) / MANIFEST
    rows = _previous_rows(path)
    rows.update({e.name: e.to_json() for e in entries})
    manifest = {"format": MANIFEST_FORMAT, "generator": ZOO_PROVENANCE.generator,
                "seed": SEED, "models": rows}
    _atomic_write(path, json.dumps(manifest, indent=2) + "\n")
    return entries
