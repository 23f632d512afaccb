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
    assert _dots_in_body(_loop(16)) == 8  # a small body: small-factor steps a trip
    assert _dots_in_body(_loop(16), "small-body-ops=0") == 4  # a larger one: factor
    assert _dots_in_body(_loop(16), "small-body-ops=0 factor=2") == 2
    assert _dots_in_body(_loop(15)) == 8  # 8 trips eight steps a trip, then a loop of 7 (below)
    assert _dots_in_body(_loop(6)) == 4  # fewer trips than small-factor: factor
    assert _dots_in_body(_loop(2)) == 1  # fewer trips than the factor
    assert _dots_in_body(_loop(16, nested=True)) == 1  # a nested region uses the body's values
    assert _dots_in_body(_loop(16), "max-body-ops=3") == 1  # too large
    assert _dots_in_body(_called(16), "max-body-ops=6") == 1  # counted with the function it calls
    assert _dots_in_body(_called(16), "max-body-ops=12") == 8
    assert _dots_in_body(_called(16), "small-body-ops=5") == 4  # the function's ops count to the size


@pytest.mark.parametrize("end, start", [(15, 0), (16, 3), (7, 0)])
def test_trips_past_a_multiple_of_the_factor_run_in_a_loop_after_it(end, start):
    trips = end - start
    module = ir.parse(_loop(end, start=start))
    transforms.run(module, "builtin.module(oxla-unroll-loops,oxla-dce)")
    ir.verify_or_raise(module)
    first, rest = [op for op in ir.ops(module) if op.name == "stablehlo.while"]
    limit = list(first.regions[0].blocks[0].operations)[0].operands[1]
    factor = 8 if trips >= 8 else 4
    assert scalar_constant(limit) == end - trips % factor  # where the unrolled loop stops
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
    assert _dots_in_body(_loop(16, from_argument=True)) == 8
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


def _updates_in_body(text: str) -> int:
    """The dynamic_update_slice ops in the loop body of `text` after oxla-hlo-opt and oxla-unroll-loops."""
    module = ir.parse(text)
    transforms.run(module, "builtin.module(oxla-hlo-opt,oxla-unroll-loops)")
    return sum(op.name == "stablehlo.dynamic_update_slice" for op in _while(module).regions[1].blocks[0].operations)


def test_loops_that_update_a_tensor_they_read_slices_of_unroll():
    # x.at[i].set(x[i, ::-1] + x[i - 1]): each copy reads the row the copy before it wrote
    step = _DIFFERENCE_STEP.replace("%xs", "%ys").replace("%d = stablehlo.subtract", "%d = stablehlo.add")
    text = f"""func.func @main(%x: {_X}) -> {_X} {{
{counted_loop(16, [("%ys", "%x", _X)], step, ["%ys2"])}  return %r#1 : {_X}
}}
"""
    assert _updates_in_body(text) == 8
    x = np.random.default_rng(10).standard_normal((16, 8)).astype(np.float32)
    want = x.copy()
    for i in range(16):
        want[i] = want[i, ::-1] + want[max(i - 1, 0)]
    np.testing.assert_array_equal(runtime.load(compile(text)).main(x), want)


def test_a_loop_updating_a_tensor_into_another_value_stays_rolled():
    # ys = x.at[i].set(2 x[i]) from the same x every trip, x passed on as it is: the kind of loop on which
    # iree-compile crashed unrolled (test_unread_carried's fori_loop writing into a closed-over array)
    step = f"""%z = stablehlo.constant dense<0> : tensor<i32>
%row = stablehlo.dynamic_slice %x, %i, %z, sizes = [1, 8] : ({_X}, tensor<i32>, tensor<i32>) -> {_ROW}
%h = stablehlo.constant dense<2.0> : {_ROW}
%d = stablehlo.multiply %row, %h : {_ROW}
%ys2 = stablehlo.dynamic_update_slice %x, %d, %i, %z : ({_X}, {_ROW}, tensor<i32>, tensor<i32>) -> {_X}
"""
    text = f"""func.func @main(%a: {_X}) -> {_X} {{
{counted_loop(16, [("%x", "%a", _X), ("%ys", "%a", _X)], step, ["%x", "%ys2"])}  return %r#2 : {_X}
}}
"""
    assert _updates_in_body(text) == 1
    x = np.random.default_rng(13).standard_normal((16, 8)).astype(np.float32)
    want = x.copy()
    want[15] *= 2
    np.testing.assert_array_equal(runtime.load(compile(text)).main(x), want)


_HALF_STEP = f"""%z = stablehlo.constant dense<0> : tensor<i32>
%c1 = stablehlo.constant dense<1> : tensor<i32>
%p = stablehlo.subtract %i, %c1 : tensor<i32>
%prev = stablehlo.dynamic_slice %x, %p, %z, sizes = [1, 64] : (tensor<16x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1x64xf32>
%row = stablehlo.dynamic_slice %x, %i, %z, sizes = [1, 64] : (tensor<16x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1x64xf32>
%h = stablehlo.constant dense<0.5> : tensor<1x64xf32>
%m = stablehlo.multiply %prev, %h : tensor<1x64xf32>
%s = stablehlo.add %m, %row : tensor<1x64xf32>
%x2 = stablehlo.dynamic_update_slice %x, %s, %i, %z : (tensor<16x64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<16x64xf32>
"""


def test_each_unrolled_step_updates_its_row_in_place():
    # x[i] = 0.5 x[i - 1] + x[i] (a fori_loop over rows): with the copies' indices cancelled to the rows the
    # copies before them wrote, IREE read those rows from the values written, which then stayed out of
    # place: a transient row and a copy dispatch a step (15 dispatches and an allocation a trip, not 8)
    text = f"""func.func @main(%a: tensor<16x64xf32>) -> tensor<16x64xf32> {{
{counted_loop(16, [("%x", "%a", "tensor<16x64xf32>")], _HALF_STEP, ["%x2"])}  return %r#1 : tensor<16x64xf32>
}}
"""
    streamed = ir.to_text(compile(text, compile_to="stream"))
    main = streamed.split("util.func public @main")[1].split("util.func public")[0]
    assert main.count("stream.cmd.dispatch @") == 8 and "stream.resource.alloca" not in main
    x = np.random.default_rng(11).standard_normal((16, 64)).astype(np.float32)
    want = x.copy()
    for i in range(16):
        want[i] = 0.5 * want[max(i - 1, 0)] + want[i]
    np.testing.assert_allclose(runtime.load(compile(text)).main(x), want, rtol=1e-6)


def _jax_updates():
    """JAX loops that update the tensor whose rows (or columns) they read, by name."""
    jax = pytest.importorskip("jax")
    loop = jax.lax.fori_loop
    return {
        "two_back": lambda x: loop(2, x.shape[0], lambda i, x: x.at[i].set(x[i - 1] * 0.5 - x[i - 2]), x),
        "ahead": lambda x: loop(0, x.shape[0] - 1, lambda i, x: x.at[i + 1].set(x[i] * 2 - x[i + 1]), x),
        "backwards": lambda x: loop(1, x.shape[0], lambda i, x: x.at[-1 - i].set(x[-i] * 0.5 + x[-1 - i]), x),
        "added": lambda x: loop(1, x.shape[0], lambda i, x: x.at[i].add(x[i - 1] * 0.25), x),
        "columns": lambda x: loop(1, x.shape[1], lambda i, x: x.at[:, i].set(x[:, i - 1] * 0.5 + x[:, i]), x),
        "whole": lambda x: loop(0, x.shape[0], lambda i, x: x.at[i].set(x[i] - x.sum(0) * 1e-2), x),
        "pair": lambda x: loop(1, x.shape[0], lambda i, c: (c[0].at[i].set(c[0][i - 1] + c[1][i]),
                                                             c[1].at[i].set(c[1][i - 1] * 0.5 - c[0][i])),
                               (x, x * 2))[0],
        "two_updates": lambda x: loop(1, x.shape[0] - 1,
                                      lambda i, x: x.at[i].set(x[i - 1] + x[i + 1]).at[i + 1].set(x[i] * 0.5), x),
        "swap": lambda x: loop(1, x.shape[0], lambda i, c: (c[1].at[i].set(c[0][i - 1] + 1),
                                                             c[0].at[i].set(c[1][i - 1] * 2)), (x, x * 0.5)),
        "mixed": lambda x: loop(1, x.shape[0], lambda i, c: (c[0], c[1].at[i].set(c[0][i, ::-1] - c[0][i - 1]),
                                                              c[2].at[i].set(c[2][i - 1] * 0.5 + c[0][i])),
                                (x, x * 0, x * 3))[1:],
    }


@pytest.mark.parametrize("name", ["two_back", "ahead", "backwards", "added", "columns", "whole", "pair", "two_updates",
                                  "swap", "mixed"])
def test_jax_loops_updating_what_they_read_match_xla(name):
    # 13 rows: a trip of eight steps and the steps left over one a trip
    from oxla.importers.jax import import_jax

    fn = _jax_updates()[name]
    x = np.random.default_rng(12).standard_normal((13, 24)).astype(np.float32)
    want = fn(x)
    got = runtime.load(compile(import_jax(fn, x).module)).main(x)
    for g, w in zip(got if isinstance(want, tuple) else [got], want if isinstance(want, tuple) else [want]):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)
