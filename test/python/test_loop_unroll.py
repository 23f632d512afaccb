"""oxla-unroll-loops: counted loops run several steps a trip."""

import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile
from oxla.transforms.loop_analysis import scalar_constant, trip_count

from loops import counted_loop


def _loop(trips: int, *, start: int = 0, step: int = 1, direction: str = "LT", nested: bool = False,
          from_argument: bool = False) -> str:
    """@main(w, h0): h = tanh(h @ w), from tanh(h0) (or h0 itself, `from_argument`), while a counter goes
    from `start` by `step` while `direction` `trips`; with `nested`, the body also sums h through a reduce
    whose body captures h."""
    extra = ""
    if nested:
        extra = """      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%h2 init: %z) across dimensions = [0, 1] : (tensor<8x64xf32>, tensor<f32>) -> tensor<f32>
        reducer(%a: tensor<f32>, %b: tensor<f32>) {
          %hh = stablehlo.slice %h2 [0:1, 0:1] : (tensor<8x64xf32>) -> tensor<1x1xf32>
          %v = stablehlo.reshape %hh : (tensor<1x1xf32>) -> tensor<f32>
          %ab = stablehlo.add %a, %b : tensor<f32>
          %r = stablehlo.add %ab, %v : tensor<f32>
          stablehlo.return %r : tensor<f32>
        }
"""
    return f"""func.func @main(%w: tensor<64x64xf32>, %h0: tensor<8x64xf32>) -> tensor<8x64xf32> {{
  %i0 = stablehlo.constant dense<{start}> : tensor<i32>
  %n = stablehlo.constant dense<{trips}> : tensor<i32>
  %hs = stablehlo.tanh %h0 : tensor<8x64xf32>
  %r:2 = stablehlo.while(%i = %i0, %h = {"%h0" if from_argument else "%hs"}) : tensor<i32>, tensor<8x64xf32>
    cond {{
      %lt = stablehlo.compare {direction}, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %p = stablehlo.dot_general %h, %w, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
      %h2 = stablehlo.tanh %p : tensor<8x64xf32>
{extra}      %one = stablehlo.constant dense<{step}> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2 : tensor<i32>, tensor<8x64xf32>
    }}
  return %r#1 : tensor<8x64xf32>
}}
"""


def _called(trips: int) -> str:
    """_loop with the step in a function the body calls, as JAX exports a scan."""
    text = _loop(trips).replace(
        "%p = stablehlo.dot_general %h, %w, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>\n      %h2 = stablehlo.tanh %p : tensor<8x64xf32>",
        "%h2 = func.call @step(%h, %w) : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>")
    return text + """func.func private @step(%h: tensor<8x64xf32>, %w: tensor<64x64xf32>) -> tensor<8x64xf32> {
  %p = stablehlo.dot_general %h, %w, contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
  %t = stablehlo.tanh %p : tensor<8x64xf32>
  return %t : tensor<8x64xf32>
}
"""


def _while(module):
    return next(op for op in ir.ops(module) if op.name == "stablehlo.while")


@pytest.mark.parametrize("text, trips", [
    (_loop(16), 16),
    (_loop(16, start=3), 13),
    (_loop(2, start=5), 0),
    (_loop(16, step=2), None),  # not by one
    (_loop(16, direction="LE"), None),  # another condition
])
def test_trip_count_of_counted_loops(text, trips):
    module = ir.parse(text)
    assert trip_count(_while(module)) == trips


def _dots_in_body(text: str, options: str = "") -> int:
    """The dot_general ops (and calls) in the loop body of `text` after oxla-unroll-loops{`options`}
    and dead-code removal: only the copies the body's results depend on count."""
    module = ir.parse(text)
    transforms.run(module, f"builtin.module(oxla-unroll-loops{{{options}}},oxla-dce)")
    ir.verify_or_raise(module)
    body = _while(module).regions[1].blocks[0]
    return sum(op.name in ("stablehlo.dot_general", "func.call") for op in body.operations)


def test_loops_whose_trips_are_a_multiple_of_the_factor_run_that_many_steps_a_trip():
    assert _dots_in_body(_loop(16)) == 4
    assert _dots_in_body(_loop(16), "factor=2") == 2
    assert _dots_in_body(_loop(15)) == 4  # 12 trips four steps a trip, then a loop of 3 (below)
    assert _dots_in_body(_loop(2)) == 1  # fewer trips than the factor
    assert _dots_in_body(_loop(16, nested=True)) == 1  # a nested region uses the body's values
    assert _dots_in_body(_loop(16), "max-body-ops=3") == 1  # too large
    assert _dots_in_body(_called(16), "max-body-ops=6") == 1  # counted with the function it calls
    assert _dots_in_body(_called(16), "max-body-ops=12") == 4


@pytest.mark.parametrize("end, start", [(15, 0), (16, 3), (7, 0)])
def test_trips_past_a_multiple_of_the_factor_run_in_a_loop_after_it(end, start):
    trips = end - start
    module = ir.parse(_loop(end, start=start))
    transforms.run(module, "builtin.module(oxla-unroll-loops,oxla-dce)")
    ir.verify_or_raise(module)
    first, rest = [op for op in ir.ops(module) if op.name == "stablehlo.while"]
    limit = list(first.regions[0].blocks[0].operations)[0].operands[1]
    assert scalar_constant(limit) == end - trips % 4  # where the unrolled loop stops
    assert list(rest.operands) == list(first.results)  # the rest starts where the first loop stops
    assert trip_count(rest) is None  # and is left as it is (its start is no constant)
    assert sum(op.name == "stablehlo.dot_general" for op in rest.regions[1].blocks[0].operations) == 1
    rng = np.random.default_rng(trips)
    w, h = (rng.standard_normal((64, 64)) * 0.1).astype(np.float32), rng.standard_normal((8, 64)).astype(np.float32)
    src = _loop(end, start=start)
    got = np.asarray(runtime.load(compile(src)).main(w, h))
    np.testing.assert_array_equal(got, np.asarray(runtime.load(compile(src, disable_passes=["oxla-unroll-loops"])).main(w, h)))
    want = np.tanh(h.astype(np.float64))
    for _ in range(trips):
        want = np.tanh(want @ w)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


def test_an_unrolled_loop_computes_the_same_values():
    rng = np.random.default_rng(7)
    w, h = (rng.standard_normal((64, 64)) * 0.1).astype(np.float32), rng.standard_normal((8, 64)).astype(np.float32)
    src = _loop(16)
    got = np.asarray(runtime.load(compile(src)).main(w, h))
    plain = np.asarray(runtime.load(compile(src, disable_passes=["oxla-unroll-loops"])).main(w, h))
    np.testing.assert_array_equal(got, plain)
    want = np.tanh(h.astype(np.float64))
    for _ in range(16):
        want = np.tanh(want @ w)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


def test_loops_changing_an_argument_unroll_too():
    # h starts as the argument h0 and changes (oxla-host-loop-inits still hands h0's buffer to the loop)
    assert _dots_in_body(_loop(16, from_argument=True)) == 4
    rng = np.random.default_rng(8)
    w, h = (rng.standard_normal((64, 64)) * 0.1).astype(np.float32), rng.standard_normal((8, 64)).astype(np.float32)
    kept = h.copy()
    src = _loop(16, from_argument=True)
    got = np.asarray(runtime.load(compile(src)).main(w, h))
    np.testing.assert_array_equal(got, np.asarray(runtime.load(compile(src, disable_passes=["oxla-unroll-loops"])).main(w, h)))
    np.testing.assert_array_equal(h, kept)


# ys[i] = xs[i, ::-1] - xs[i - 1] for i below 16, over the rows of xs [16, 8] (xs[-1] read as xs[0], as a
# dynamic_slice clamps its start): each step reads the row its index names and the one before.
_X = "tensor<16x8xf32>"
_ROW = "tensor<1x8xf32>"
_DIFFERENCE_STEP = f"""
%z = stablehlo.constant dense<0> : tensor<i32>
%c1 = stablehlo.constant dense<1> : tensor<i32>
%p = stablehlo.subtract %i, %c1 : tensor<i32>
%prev = stablehlo.dynamic_slice %xs, %p, %z, sizes = [1, 8] : ({_X}, tensor<i32>, tensor<i32>) -> {_ROW}
%row = stablehlo.dynamic_slice %xs, %i, %z, sizes = [1, 8] : ({_X}, tensor<i32>, tensor<i32>) -> {_ROW}
%rev = stablehlo.reverse %row, dims = [1] : {_ROW}
%d = stablehlo.subtract %rev, %prev : {_ROW}
%ys2 = stablehlo.dynamic_update_slice %ys, %d, %i, %z : ({_X}, {_ROW}, tensor<i32>, tensor<i32>) -> {_X}
"""
_DIFFERENCES = f"""func.func @main(%x: {_X}) -> {_X} {{
  %zeros = stablehlo.constant dense<0.0> : {_X}
{counted_loop(16, [("%xs", "%x", _X), ("%ys", "%zeros", _X)], _DIFFERENCE_STEP, ["%xs", "%ys2"])}  return %r#2 : {_X}
}}
"""


def test_a_copy_reads_the_index_before_it_as_it_is():
    # a copy's i - 1 is the step before's index (i + 1) - 1, used as that index itself: IREE (O2 and up)
    # fused the copies' index values into one dispatch of several results and, one of them being its
    # own input, handed two copies the same row, so this loop came out wrong
    module = ir.parse(_DIFFERENCES)
    transforms.run(module, "builtin.module(oxla-hlo-opt,oxla-unroll-loops,oxla-dce)")
    body = _while(module).regions[1].blocks[0]
    subtracts = [op for op in body.operations if op.name == "stablehlo.subtract" and "i32" in str(op.results[0].type)]
    assert len(subtracts) == 1 and isinstance(subtracts[0].operands[0], ir.BlockArgument)  # the first copy's
    x = np.random.default_rng(9).standard_normal((16, 8)).astype(np.float32)
    want = np.stack([x[i, ::-1] - x[max(i - 1, 0)] for i in range(16)])
    np.testing.assert_array_equal(runtime.load(compile(_DIFFERENCES)).main(x), want)


def test_loops_that_update_a_tensor_they_read_slices_of_stay_as_they_are():
    # x.at[i].set(x[i, ::-1] + x[i - 1]): unrolled, IREE reads each copy's rows from the copy before
    step = _DIFFERENCE_STEP.replace("%xs", "%ys").replace("%d = stablehlo.subtract", "%d = stablehlo.add")
    text = f"""func.func @main(%x: {_X}) -> {_X} {{
{counted_loop(16, [("%ys", "%x", _X)], step, ["%ys2"])}  return %r#1 : {_X}
}}
"""
    module = ir.parse(text)
    transforms.run(module, "builtin.module(oxla-hlo-opt,oxla-unroll-loops,oxla-dce)")
    body = _while(module).regions[1].blocks[0]
    assert sum(op.name == "stablehlo.dynamic_update_slice" for op in body.operations) == 1
    x = np.random.default_rng(10).standard_normal((16, 8)).astype(np.float32)
    want = x.copy()
    for i in range(16):
        want[i] = want[i, ::-1] + want[max(i - 1, 0)]
    np.testing.assert_array_equal(runtime.load(compile(text)).main(x), want)
