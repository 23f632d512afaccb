"""oxla-llvmcpu-split-arg-reductions (oxla/transforms/arg_reductions.py): argmax and argmin reductions
become the extremum and the first (last) position holding it, with the original's results bit for bit."""

import ml_dtypes
import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile

PASS = "builtin.module(oxla-llvmcpu-split-arg-reductions)"

# The bodies JAX, PyTorch (oxla's importer) and ONNX (oxla's importer, select_last_index) give argmax;
# GT becomes LT for argmin. %a/%b are the values, %i/%j the positions.
BODIES = {
    "jax": """
      %0 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<T>, tensor<T>) -> tensor<i1>
      %1 = stablehlo.compare NE, %a, %a, FLOAT : (tensor<T>, tensor<T>) -> tensor<i1>
      %2 = stablehlo.or %0, %1 : tensor<i1>
      %3 = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<T>, tensor<T>) -> tensor<i1>
      %4 = stablehlo.compare LT, %i, %j, SIGNED : (tensor<P>, tensor<P>) -> tensor<i1>
      %5 = stablehlo.and %3, %4 : tensor<i1>
      %6 = stablehlo.or %2, %5 : tensor<i1>
      %7 = stablehlo.select %2, %a, %b : tensor<i1>, tensor<T>
      %8 = stablehlo.select %6, %i, %j : tensor<i1>, tensor<P>
      stablehlo.return %7, %8 : tensor<T>, tensor<P>""",
    "torch": """
      %first = stablehlo.compare LT, %i, %j, SIGNED : (tensor<P>, tensor<P>) -> tensor<i1>
      %0 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<T>, tensor<T>) -> tensor<i1>
      %1 = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<T>, tensor<T>) -> tensor<i1>
      %2 = stablehlo.and %1, %first : tensor<i1>
      %3 = stablehlo.or %0, %2 : tensor<i1>
      %an = stablehlo.compare NE, %a, %a, FLOAT : (tensor<T>, tensor<T>) -> tensor<i1>
      %bn = stablehlo.compare NE, %b, %b, FLOAT : (tensor<T>, tensor<T>) -> tensor<i1>
      %nb = stablehlo.not %bn : tensor<i1>
      %4 = stablehlo.or %nb, %first : tensor<i1>
      %5 = stablehlo.and %an, %4 : tensor<i1>
      %6 = stablehlo.and %3, %nb : tensor<i1>
      %7 = stablehlo.or %5, %6 : tensor<i1>
      %8 = stablehlo.select %7, %a, %b : tensor<i1>, tensor<T>
      %9 = stablehlo.select %7, %i, %j : tensor<i1>, tensor<P>
      stablehlo.return %8, %9 : tensor<T>, tensor<P>""",
    "onnx_last": """
      %0 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<T>, tensor<T>) -> tensor<i1>
      %1 = stablehlo.compare NE, %a, %a, FLOAT : (tensor<T>, tensor<T>) -> tensor<i1>
      %2 = stablehlo.or %0, %1 : tensor<i1>
      %3 = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<T>, tensor<T>) -> tensor<i1>
      %4 = stablehlo.compare GT, %i, %j, SIGNED : (tensor<P>, tensor<P>) -> tensor<i1>
      %5 = stablehlo.and %3, %4 : tensor<i1>
      %6 = stablehlo.or %2, %5 : tensor<i1>
      %7 = stablehlo.select %6, %a, %b : tensor<i1>, tensor<T>
      %8 = stablehlo.select %6, %i, %j : tensor<i1>, tensor<P>
      stablehlo.return %7, %8 : tensor<T>, tensor<P>""",
}

IDENTITY = {("f32", "max"): "0xFF800000", ("f32", "min"): "0x7F800000", ("bf16", "max"): "0xFF80",
            ("bf16", "min"): "0x7F80", ("i8", "max"): "-128", ("i8", "min"): "127"}
DTYPES = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "i8": np.int8}


def program(shape, dim: int, element="f32", extremum="max", body="jax", positions="i32", values=False) -> str:
    """@main(x) = the arg`extremum` of x along `dim` (and the extrema, with `values`)."""
    dims = "x".join(map(str, shape))
    rest = "x".join(str(n) for d, n in enumerate(shape) if d != dim)
    t, r, p, rp = f"tensor<{dims}x{element}>", f"tensor<{rest}x{element}>", f"tensor<{dims}x{positions}>", \
        f"tensor<{rest}x{positions}>"
    text = BODIES[body].replace("tensor<T>", f"tensor<{element}>").replace("tensor<P>", f"tensor<{positions}>")
    if extremum == "min":
        text = text.replace("compare GT, %a", "compare LT, %a")
    if not element.startswith(("f", "bf")):
        text = text.replace("FLOAT", "SIGNED")
    results = f"{r}, {rp}" if values else rp
    returned = f"%r#0, %r#1 : {r}, {rp}" if values else f"%r#1 : {rp}"
    return f"""func.func @main(%x: {t}) -> ({results}) {{
  %p = stablehlo.iota dim = {dim} : {p}
  %v0 = stablehlo.constant dense<{IDENTITY[element, extremum]}> : tensor<{element}>
  %p0 = stablehlo.constant dense<0> : tensor<{positions}>
  %r:2 = stablehlo.reduce(%x init: %v0), (%p init: %p0) across dimensions = [{dim}]
    : ({t}, {p}, tensor<{element}>, tensor<{positions}>) -> ({r}, {rp})
   reducer(%a: tensor<{element}>, %b: tensor<{element}>) (%i: tensor<{positions}>, %j: tensor<{positions}>) {{{text}
    }}
  return {returned}
}}
"""


def rewritten(text: str) -> bool:
    """Whether the pass replaced the program's two-result reduce."""
    module = ir.parse(text)
    transforms.run(module, PASS)
    assert not ir.verify(module)
    reduces = [op for op in ir.ops(module) if op.name == "stablehlo.reduce"]
    return all(len(op.results) == 1 for op in reduces)


def reference(x: np.ndarray, dim: int, extremum: str, last: bool = False) -> np.ndarray:
    """numpy's arg-extremum, NaN winning (the first NaN; the last with `last`), ties by position."""
    moved = np.moveaxis(x.astype(np.float64), dim, -1)
    nan_row = np.isnan(moved).any(-1, keepdims=True)
    numbers = np.where(np.isnan(moved), -np.inf if extremum == "max" else np.inf, moved)
    best = numbers.max(-1, keepdims=True) if extremum == "max" else numbers.min(-1, keepdims=True)
    hit = np.where(nan_row, np.isnan(moved), moved == best)
    if last:
        return (hit.shape[-1] - 1 - np.argmax(hit[..., ::-1], -1)).astype(np.int32)
    return np.argmax(hit, -1).astype(np.int32)


def special_values(shape, dtype, seed: int) -> np.ndarray:
    """Random values with many ties; for floats also NaN of both signs, infinities, signed zeros and rows
    (along the last dimension) of only NaN, only -inf, only zeros."""
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        x = rng.integers(-128, 128, shape).astype(dtype)
        x.flat[::7] = 127
        x.flat[::11] = -128
        return x
    x = rng.integers(-3, 4, shape).astype(np.float32)
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0], np.float32)
    mask = rng.random(shape) < 0.05
    x[mask] = rng.choice(specials, mask.sum())
    flat = x.reshape(-1, shape[-1])
    flat[0], flat[1], flat[2] = np.nan, -np.inf, np.where(np.arange(shape[-1]) % 2, 0.0, -0.0)
    return x.astype(dtype)


@pytest.mark.parametrize("body", ["jax", "torch"])
@pytest.mark.parametrize("extremum", ["max", "min"])
@pytest.mark.parametrize("shape, dim", [((6, 40), 1), ((40, 6), 0), ((3, 17, 5), 1)])
def test_arg_reductions_match_numpy_and_iree_own_code(body, extremum, shape, dim):
    text = program(shape, dim, extremum=extremum, body=body)
    assert rewritten(text)
    x = special_values(shape, np.float32, seed=len(shape) + dim)
    got = np.asarray(runtime.load(compile(text)).main(x))
    np.testing.assert_array_equal(got, reference(x, dim, extremum))
    iree = np.asarray(runtime.load(compile(text, optimize=False)).main(x))  # the reduce as it came
    np.testing.assert_array_equal(got, iree)


@pytest.mark.parametrize("element", ["bf16", "i8"])
def test_other_element_types(element):
    text = program((5, 33), 1, element=element)
    assert rewritten(text)
    x = special_values((5, 33), DTYPES[element], seed=3)
    np.testing.assert_array_equal(np.asarray(runtime.load(compile(text)).main(x)), reference(x, 1, "max"))


def test_the_last_position_among_ties_where_the_body_says_so():
    text = program((6, 40), 1, body="onnx_last")
    assert rewritten(text)
    x = special_values((6, 40), np.float32, seed=5)
    x[:, 0] = x[:, 39] = 50.0  # ties at both ends of every row
    x[0] = np.nan
    np.testing.assert_array_equal(np.asarray(runtime.load(compile(text)).main(x)),
                                  reference(x, 1, "max", last=True))


def test_extrema_used_are_the_values_at_the_positions():
    text = program((6, 40), 1, values=True, body="torch")
    assert rewritten(text)
    x = special_values((6, 40), np.float32, seed=6)
    best, where = runtime.load(compile(text)).main(x)
    np.testing.assert_array_equal(np.asarray(where), reference(x, 1, "max"))
    np.testing.assert_array_equal(np.asarray(best).view(np.uint32),
                                  np.take_along_axis(x, np.asarray(where)[:, None], 1)[:, 0].view(np.uint32))


@pytest.mark.parametrize("change", [
    "picks b on ties", "compares with a constant", "total order", "other start", "position start", "not an iota",
])
def test_other_reductions_are_left_alone(change):
    text = program((6, 40), 1)
    text = {
        "picks b on ties": lambda t: t.replace("compare LT, %i, %j", "compare GT, %i, %j").replace(
            "compare GT, %a", "compare GE, %a"),
        "compares with a constant": lambda t: t.replace(
            "%1 = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
            "%z = stablehlo.constant dense<0.0> : tensor<f32>\n"
            "      %1 = stablehlo.compare NE, %a, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>"),
        "total order": lambda t: t.replace("GT, %a, %b, FLOAT", "GT, %a, %b, TOTALORDER"),
        "other start": lambda t: t.replace("0xFF800000", "0.0"),
        "position start": lambda t: t.replace("dense<0> : tensor<i32>", "dense<-1> : tensor<i32>"),
        "not an iota": lambda t: t.replace("stablehlo.iota dim = 1 : tensor<6x40xi32>",
                                           "stablehlo.iota dim = 0 : tensor<6x40xi32>"),
    }[change](text)
    assert not rewritten(text)


def test_jax_argmax_through_oxla_matches_xla():
    jax = pytest.importorskip("jax")
    x = special_values((16, 300), np.float32, seed=7)
    for fn in (lambda v: jax.numpy.argmax(v, axis=1), lambda v: jax.numpy.argmin(v, axis=0),
               lambda v: jax.lax.argmax(v, 1, np.int32)):
        text = jax.jit(fn).lower(x).as_text()
        got = np.asarray(runtime.load(compile(text)).main(x))
        np.testing.assert_array_equal(got, np.asarray(jax.jit(fn)(x)))
