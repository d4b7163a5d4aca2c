"""Every import of the project by the TVM-test harness, in one place, so a move is one edit.

The harness uses the project only through these names: the Relay front end (parser, printer,
alpha-equality, type inference, JSON), the interpreter, the gradient, the DCEs and the
transforms the debug executor's Prepare runs, the op registry (to name unregistered ops) and
the Relay model zoo (TVM's `relay.testing` workloads).

Nothing else in the harness names a project module: a move in the project is an edit here.
`PROJECT_DIRS` must keep covering every package the project's code lives in
(a crash raised there is the project's, elsewhere the harness's).
"""

from __future__ import annotations

from pathlib import Path

import aliaslog
import extractor
from aliaslog.relay.dce import relay_dce as dce
from aliaslog.zoo import relay_models as zoo
from extractor.relay import ast
from extractor.relay.alpha import alpha_equal, assert_alpha_equal
from extractor.relay.errors import LocatedError, ParseError, RelayTypeError
from extractor.relay.interpreter import (
    Closure,
    ConstructorValue,
    EvalError,
    RefCell,
    eval_expr,
    evaluate,
)
from extractor.relay.json_io import load_json, save_json
from extractor.relay.ops import OPS, lookup, make_call
from extractor.relay.parser import parse, parse_expr
from extractor.relay.printer import astext, type_str
from extractor.relay.transforms.anf import expr_to_a_normal_form, to_a_normal_form
from extractor.relay.transforms.eta_expand import eta_expand
from extractor.relay.transforms.first_order_gradient import (
    first_order_gradient,
    first_order_gradient_module,
)
from extractor.relay.transforms.gradient import gradient, gradient_module
from extractor.relay.transforms.simplify_inference import simplify_inference
from extractor.relay.typeinfer import infer_expr, infer_types

# where the project's code lives: an exception raised from a frame here is the project's
PROJECT_DIRS: tuple[str, ...] = tuple(
    str(Path(p.__file__).resolve().parent) for p in (aliaslog, extractor)
)

__all__ = [
    "Closure", "ConstructorValue", "EvalError", "LocatedError", "OPS", "PROJECT_DIRS",
    "ParseError", "RefCell", "RelayTypeError", "alpha_equal", "assert_alpha_equal", "ast",
    "astext", "dce", "eta_expand", "eval_expr", "evaluate",
    "expr_to_a_normal_form", "first_order_gradient", "first_order_gradient_module", "gradient",
    "gradient_module", "infer_expr", "infer_types",
    "load_json", "lookup", "make_call", "parse", "parse_expr", "save_json",
    "simplify_inference", "to_a_normal_form", "type_str", "zoo",
]
