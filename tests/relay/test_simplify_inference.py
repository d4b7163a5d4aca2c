"""SimplifyInference as v0.19 builds it (src/relay/transforms/simplify_inference.cc).

Each rewrite is compared with the program v0.19's `*ToInferUnpack` builds, written out by hand
as Relay text (same calls, same sharing, same constants), and run against the op's own kernel:
the rewritten program computes what the op computed.
"""

from __future__ import annotations

import numpy as np
import pytest

from extractor.relay.alpha import assert_alpha_equal
from extractor.relay.errors import RelayTypeError
from extractor.relay.interpreter import evaluate
from extractor.relay.transforms.simplify_inference import simplify_inference
from extractor.relay.typeinfer import infer_types
from tests.support.relay_ops import T, rand, typed


def simplified(params: str, body: str) -> object:
    return infer_types(simplify_inference(typed(params, body))).module


def check(params: str, body: str, expected: str, shapes: list[tuple[int, ...]],
          dtype: str = "float32") -> None:
    """The rewrite is `expected`, and computes what the original program computes."""
    got = simplified(params, body)
    assert_alpha_equal(got, typed(params, expected))
    args = [rand(*s, seed=k).astype(dtype) for k, s in enumerate(shapes)]
    want = evaluate(typed(params, body), args)
    np.testing.assert_allclose(evaluate(got, args), want, rtol=1e-5, atol=1e-6)


F32 = "float32"


def test_batch_norm():
    params = (f"%x: {T(2, 3, 4, 4, dtype=F32)}, %g: {T(3, dtype=F32)}, %b: {T(3, dtype=F32)}, "
              f"%m: {T(3, dtype=F32)}, %v: {T(3, dtype=F32)}")
    body = "%0 = nn.batch_norm(%x, %g, %b, %m, %v, epsilon=0.001f); %0.0"
    expected = ("%0 = add(%v, 0.001f); %1 = sqrt(%0); %2 = divide(1f, %1); %3 = multiply(%2, %g);"
                " %4 = negative(%m); %5 = multiply(%4, %3); %6 = add(%5, %b);"
                " %7 = expand_dims(%3, axis=1, num_newaxis=2);"
                " %8 = expand_dims(%6, axis=1, num_newaxis=2);"
                " %9 = multiply(%x, %7); add(%9, %8)")
    shapes = [(2, 3, 4, 4), (3,), (3,), (3,), (3,)]
    got = simplified(params, body)
    assert_alpha_equal(got, typed(params, expected))
    args = [rand(*s, seed=k).astype(F32) for k, s in enumerate(shapes)]
    args[4] = np.abs(args[4])  # a variance
    np.testing.assert_allclose(evaluate(got, args), evaluate(typed(params, body), args),
                               rtol=1e-5, atol=1e-6)


def test_batch_norm_without_scale_or_center_on_the_last_axis():
    params = (f"%x: {T(2, 3, dtype=F32)}, %g: {T(3, dtype=F32)}, %b: {T(3, dtype=F32)}, "
              f"%m: {T(3, dtype=F32)}, %v: {T(3, dtype=F32)}")
    body = "%0 = nn.batch_norm(%x, %g, %b, %m, %v, axis=-1, center=False, scale=False); %0.0"
    expected = ("%0 = add(%v, 1e-05f); %1 = sqrt(%0); %2 = divide(1f, %1);"
                " %3 = negative(%m); %4 = multiply(%3, %2); %5 = multiply(%x, %2); add(%5, %4)")
    assert_alpha_equal(simplified(params, body), typed(params, expected))


def test_dropout_is_its_input_and_a_tuple_used_whole_is_left_alone():
    params = f"%x: {T(2, 3, dtype=F32)}"
    assert_alpha_equal(simplified(params, "%0 = nn.dropout(%x, rate=0.3f); %0.0"),
                       typed(params, "%x"))
    whole = "%0 = nn.dropout(%x); %0.1"  # the mask is not rewritten
    assert_alpha_equal(simplified(params, whole), typed(params, whole))


def test_layer_norm():
    params = f"%x: {T(2, 3, 4, dtype=F32)}, %g: {T(4, dtype=F32)}, %b: {T(4, dtype=F32)}"
    expected = ("%0 = mean(%x, axis=[-1], keepdims=True);"
                " %1 = variance(%x, %0, axis=[-1], keepdims=True); %2 = add(%1, 1e-05f);"
                " %3 = sqrt(%2); %4 = subtract(%x, %0); %5 = divide(%4, %3);"
                " %6 = multiply(%5, %g); add(%6, %b)")
    check(params, "nn.layer_norm(%x, %g, %b)", expected, [(2, 3, 4), (4,), (4,)])


def test_layer_norm_on_a_middle_axis_in_float64():
    params = f"%x: {T(2, 3, 4)}, %g: {T(3)}, %b: {T(3)}"
    expected = ("%0 = mean(%x, axis=[1], keepdims=True);"
                " %1 = variance(%x, %0, axis=[1], keepdims=True);"
                f" %2 = add(%1, {float(np.float32(0.01))!r}f64);"
                " %3 = sqrt(%2); %4 = subtract(%x, %0); %5 = divide(%4, %3);"
                " %6 = expand_dims(%g, axis=1); multiply(%5, %6)")
    check(params, "nn.layer_norm(%x, %g, %b, axis=1, epsilon=0.01f, center=False)", expected,
          [(2, 3, 4), (3,), (3,)], dtype="float64")


def test_instance_norm():
    params = f"%x: {T(2, 3, 4, 5, dtype=F32)}, %g: {T(3, dtype=F32)}, %b: {T(3, dtype=F32)}"
    expected = ("%0 = mean(%x, axis=[2, 3], keepdims=True);"
                " %1 = variance(%x, %0, axis=[2, 3], keepdims=True); %2 = add(%1, 1e-05f);"
                " %3 = sqrt(%2); %4 = subtract(%x, %0); %5 = divide(%4, %3);"
                " %6 = expand_dims(%g, axis=1, num_newaxis=2); %7 = multiply(%5, %6);"
                " %8 = expand_dims(%b, axis=1, num_newaxis=2); add(%7, %8)")
    check(params, "nn.instance_norm(%x, %g, %b)", expected, [(2, 3, 4, 5), (3,), (3,)])


def test_group_norm():
    params = f"%x: {T(2, 6, 3, dtype=F32)}, %g: {T(6, dtype=F32)}, %b: {T(6, dtype=F32)}"
    expected = ("%0 = reshape(%x, newshape=[2, 3, 2, 3]);"
                " %1 = mean(%0, axis=[2, 3], keepdims=True);"
                " %2 = variance(%0, %1, axis=[2, 3], keepdims=True); %3 = add(%2, 1e-05f);"
                " %4 = sqrt(%3); %5 = subtract(%0, %1); %6 = divide(%5, %4);"
                " %7 = reshape(%6, newshape=[2, 6, 3]); %8 = expand_dims(%g, axis=1);"
                " %9 = multiply(%7, %8); %10 = expand_dims(%b, axis=1); add(%9, %10)")
    check(params, "nn.group_norm(%x, %g, %b, num_groups=3)", expected, [(2, 6, 3), (6,), (6,)])


def test_l2_normalize():
    params = f"%x: {T(2, 3, dtype=F32)}"
    expected = ("%0 = multiply(%x, %x); %1 = sum(%0, axis=[1], keepdims=True);"
                " %2 = maximum(%1, 0.001f); %3 = sqrt(%2); divide(%x, %3)")
    check(params, "nn.l2_normalize(%x, eps=0.001f, axis=[1])", expected, [(2, 3)])


def test_l2_normalize_keeps_v019s_float32_epsilon():
    """v0.19 builds the epsilon in float32 whatever the data: float64 no longer type-checks."""
    mod = simplify_inference(typed(f"%x: {T(2, 3)}", "nn.l2_normalize(%x, eps=0.001f, axis=[1])"))
    with pytest.raises(RelayTypeError):
        infer_types(mod)


def test_nothing_to_rewrite_is_the_same_module():
    mod = typed(f"%x: {T(2, 3)}", "nn.softmax(%x)")
    assert simplify_inference(mod) is mod
