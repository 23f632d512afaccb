"""oxla-unread-carried-values: while loops whose body does not read a value they carry.

Such loops crashed IREE's stream conversion (SIGSEGV in `oxla.compile`) unless IREE made them scf.for
loops: a value tested by the condition only, or one read by nothing once oxla-unroll-loops had unrolled
a fori_loop. Each program here is compiled through the default pipeline and its result checked against a
numpy model of the loop.
"""

import re

import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile

from loops import counted_loop

# As in oxla.compile: the optimizer first (it hoists the constants out of the loops).
PASS = "builtin.module(oxla-hlo-opt,oxla-unread-carried-values)"

# Each trip writes the counter into element i of the argument %x itself, not into the carried %a.
_OUTSIDE_STEP = """
%v = stablehlo.reshape %i : (tensor<i32>) -> tensor<1xi32>
%a2 = stablehlo.dynamic_update_slice %x, %v, %i : (tensor<6xi32>, tensor<1xi32>, tensor<i32>) -> tensor<6xi32>
"""


def _outside(trips: int) -> str:
    return f"""
func.func @main(%x: tensor<6xi32>) -> tensor<6xi32> {{
{counted_loop(trips, [("%a", "%x", "tensor<6xi32>")], _OUTSIDE_STEP, ["%a2"])}  return %r#1 : tensor<6xi32>
}}
"""


def _run(src: str, *args, **options):
    results = runtime.load(compile(src, **options)).main(*args)
    return [np.asarray(r) for r in (results if isinstance(results, (list, tuple)) else [results])]


def _rewritten(src: str) -> tuple[str, str]:
    """The program after the pass: the loop's body, and what follows the loop."""
    module = ir.parse(src)
    transforms.run(module, PASS)
    body = re.search(r"do \{(.*?)\n    \}\n(.*)", ir.to_text(module), re.S)
    return body[1], body[2]


@pytest.mark.parametrize("trips", [0, 1, 5, 6, 9])
def test_an_update_of_an_array_from_outside_is_the_last_trips(trips):
    x = np.arange(6, dtype=np.int32) * 10
    want = x.copy()
    if trips:
        want[min(trips - 1, 5)] = trips - 1  # the index clamped into the array, as StableHLO's is
    np.testing.assert_array_equal(_run(_outside(trips), x)[0], want)
    body, after = _rewritten(_outside(trips))
    assert "dynamic_update_slice" not in body
    assert ("dynamic_update_slice" in after) == (trips > 0)


def test_the_pipeline_with_its_loop_passes_left_out_agrees():
    x = np.arange(6, dtype=np.int32) * 10
    left_out = ["oxla-unroll-loops", "oxla-host-scalar-dispatches"]
    np.testing.assert_array_equal(_run(_outside(6), x, disable_passes=left_out)[0], _run(_outside(6), x)[0])


# Counting by two from %start while below %end (neither known while compiling): a value made from the
# counter has no last start known before the loop, so the loop keeps it and reads it (a select);
# one made from a value the loop hands back unchanged (%y) is computed after the loop where a trip ran.
BY_TWO = """
func.func @main(%x: tensor<6xi32>, %y: tensor<4xf32>, %start: tensor<i32>, %end: tensor<i32>)
    -> (tensor<6xi32>, tensor<4xf32>, tensor<i32>) {
  %r:4 = stablehlo.while(%i = %start, %a = %x, %b = %y, %c = %y) : tensor<i32>, tensor<6xi32>, tensor<4xf32>, tensor<4xf32>
  cond {
    %lt = stablehlo.compare LT, %i, %end, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %v = stablehlo.reshape %i : (tensor<i32>) -> tensor<1xi32>
    %a2 = stablehlo.dynamic_update_slice %x, %v, %i : (tensor<6xi32>, tensor<1xi32>, tensor<i32>) -> tensor<6xi32>
    %b2 = stablehlo.multiply %c, %c : tensor<4xf32>
    %two = stablehlo.constant dense<2> : tensor<i32>
    %i2 = stablehlo.add %i, %two : tensor<i32>
    stablehlo.return %i2, %a2, %b2, %c : tensor<i32>, tensor<6xi32>, tensor<4xf32>, tensor<4xf32>
  }
  return %r#1, %r#2, %r#0 : tensor<6xi32>, tensor<4xf32>, tensor<i32>
}
"""


def _by_two(x, y, start: int, end: int):
    a, b, i = x.copy(), y.copy(), start
    while i < end:
        a = x.copy()
        a[min(max(i, 0), 5)] = i
        b = y * y
        i += 2
    return a, b, i


@pytest.mark.parametrize("start, end", [(0, 6), (1, 6), (3, 4), (5, 2)])
def test_a_loop_counting_by_two_keeps_its_counters_value_and_computes_the_other_after(start, end):
    body, after = _rewritten(BY_TWO)
    assert "stablehlo.select" in body and "multiply" not in body
    assert "stablehlo.multiply" in after and "stablehlo.select" in after
    x = np.arange(6, dtype=np.int32) * 10
    y = np.array([1.5, -2, 3, 0.25], np.float32)
    got = _run(BY_TWO, x, y, np.int32(start), np.int32(end))
    for g, w in zip(got, _by_two(x, y, start, end)):
        np.testing.assert_array_equal(g, w)


def test_a_value_made_by_a_side_effect_is_kept_in_the_loop():
    src = BY_TWO.replace("%b2 = stablehlo.multiply %c, %c : tensor<4xf32>",
                         '%b2 = stablehlo.custom_call @effect(%c) {has_side_effect = true} : '
                         '(tensor<4xf32>) -> tensor<4xf32>')
    body, after = _rewritten(src)
    assert body.count("stablehlo.select") == 2 and "stablehlo.select" not in after


def test_jax_fori_loop_writing_into_a_closed_over_array():
    jax = pytest.importorskip("jax")
    from jax import lax

    def f(x, i0):
        return lax.fori_loop(0, 6, lambda i, a: x.at[(i + i0) % 6].set(i * 7), x)

    x = np.arange(6, dtype=np.int32) * 10
    text = jax.jit(f).lower(x, np.int32(2)).as_text()
    np.testing.assert_array_equal(_run(text, x, np.int32(2))[0], np.asarray(jax.jit(f)(x, np.int32(2))))


# A tolerance the condition tests and the body recomputes from other values (without reading it).
TOLERANCE = """
func.func @main(%x: tensor<f32>, %n: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %big = stablehlo.constant dense<100.0> : tensor<f32>
  %r:2 = stablehlo.while(%i = %zero, %e = %big) : tensor<i32>, tensor<f32>
  cond {
    %lim = stablehlo.constant dense<1.0> : tensor<f32>
    %gt = stablehlo.compare GT, %e, %lim, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %go = stablehlo.and %gt, %lt : tensor<i1>
    stablehlo.return %go : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %f = stablehlo.convert %i2 : (tensor<i32>) -> tensor<f32>
    %e2 = stablehlo.divide %x, %f : tensor<f32>
    stablehlo.return %i2, %e2 : tensor<i32>, tensor<f32>
  }
  return %r#1, %r#0 : tensor<f32>, tensor<i32>
}
"""


@pytest.mark.parametrize("x, n, want", [(10.0, 50, (1.0, 10)), (10.0, 4, (2.5, 4)), (10.0, 0, (100.0, 0))])
def test_a_value_only_the_condition_reads(x, n, want):
    body, _ = _rewritten(TOLERANCE)
    assert "stablehlo.select" in body
    e, i = _run(TOLERANCE, np.float32(x), np.int32(n))
    assert (float(e), int(i)) == want


def test_jax_while_loop_on_a_tolerance():
    jax = pytest.importorskip("jax")
    from jax import lax

    def f(x):
        def body(c):
            i, _, y = c
            return i + 1, jax.numpy.abs(y * 0.5 - x).max(), y * 0.5
        return lax.while_loop(lambda c: c[1] > 1e-3, body, (0, jax.numpy.float32(1e9), x * 4))

    x = np.linspace(-1, 1, 8).astype(np.float32)
    text = jax.jit(f).lower(x).as_text()
    for g, w in zip(_run(text, x), jax.jit(f)(x)):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-6)


def test_vulkan_runs_the_rewritten_loops_where_it_exists():
    if not any(d.name == "vulkan" and d.available for d in runtime.devices()):
        pytest.skip("no vulkan device on this machine")

    def on_vulkan(src, *args):
        results = runtime.load(compile(src, target="vulkan-spirv"), device="vulkan").main(*args)
        return [np.asarray(r) for r in (results if isinstance(results, (list, tuple)) else [results])]

    e, i = on_vulkan(TOLERANCE, np.float32(10), np.int32(50))
    assert (float(e), int(i)) == (1.0, 10)
    x = np.arange(6, dtype=np.int32) * 10
    np.testing.assert_array_equal(on_vulkan(_outside(6), x)[0], [0, 10, 20, 30, 40, 5])


# Each trip sets %prev to the start of %off, and only the condition reads it (IREE crashed on it).
PREVIOUS_NORM = """
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %big = stablehlo.constant dense<100.0> : tensor<f32>
  %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %r:3 = stablehlo.while(%v = %x, %off = %big, %prev = %inf) : tensor<f32>, tensor<f32>, tensor<f32>
  cond {
    %lt = stablehlo.compare LT, %off, %prev, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %half = stablehlo.constant dense<0.5> : tensor<f32>
    %v2 = stablehlo.multiply %v, %half : tensor<f32>
    %off2 = stablehlo.abs %v2 : tensor<f32>
    stablehlo.return %v2, %off2, %off : tensor<f32>, tensor<f32>, tensor<f32>
  }
  return %r#0, %r#2 : tensor<f32>, tensor<f32>
}
"""


def test_a_previous_norm_only_the_condition_reads():
    body, _ = _rewritten(PREVIOUS_NORM)
    assert "stablehlo.select" in body
    v, prev = _run(PREVIOUS_NORM, np.float32(3.0))
    assert float(v) == 0.0 and float(prev) == 0.0  # halved until it underflows, then no longer below
