"""oxla-llvmcpu-scalar-loops: loops that move single elements of small arrays run as one CPU dispatch.

Each loop is checked two ways: that the pass took it (no stablehlo.while is left for IREE) or left it,
and that the compiled program computes what a numpy model of the loop does.
"""

import numpy as np
import pytest

from oxla import ir, runtime
from oxla.pipelines import compile

from loops import counted_loop

PASS = "oxla-llvmcpu-scalar-loops"


def _taken(src, **options) -> bool:
    """Whether the program's loop became the pass's dispatch (and no stablehlo.while is left for IREE)."""
    seen = []
    compile(src, compile_to="input", hooks={"before:input": lambda m: seen.append(ir.to_text(m))}, **options)
    taken = "flow.dispatch @oxla_scalar_loop" in seen[0]
    assert taken == ("stablehlo.while" not in seen[0])
    return taken


def _run(src: str, *args, **options):
    results = runtime.load(compile(src, **options)).main(*args)
    return [np.asarray(r) for r in (results if isinstance(results, (list, tuple)) else [results])]


# A fori_loop swapping perm[i] and perm[swaps[i]] (JAX's LU pivots to a permutation, in its own words:
# dynamic_slice reads, one-element scatters through a function call).
PERMUTATION = """
func.func @main(%swaps: tensor<40xi32>) -> tensor<40xi32> {
  %perm = stablehlo.iota dim = 0 : tensor<40xi32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %end = stablehlo.constant dense<40> : tensor<i32>
  %r:3 = stablehlo.while(%s = %swaps, %i = %zero, %p = %perm) : tensor<40xi32>, tensor<i32>, tensor<40xi32>
  cond {
    %more = stablehlo.compare LT, %i, %end, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %more : tensor<i1>
  } do {
    %q = func.call @swap(%s, %i, %p) : (tensor<40xi32>, tensor<i32>, tensor<40xi32>) -> tensor<40xi32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %s, %next, %q : tensor<40xi32>, tensor<i32>, tensor<40xi32>
  }
  return %r#2 : tensor<40xi32>
}
func.func private @swap(%s: tensor<40xi32>, %i: tensor<i32>, %p: tensor<40xi32>) -> tensor<40xi32> {
  %j1 = stablehlo.dynamic_slice %s, %i, sizes = [1] : (tensor<40xi32>, tensor<i32>) -> tensor<1xi32>
  %j = stablehlo.reshape %j1 : (tensor<1xi32>) -> tensor<i32>
  %x1 = stablehlo.dynamic_slice %p, %i, sizes = [1] : (tensor<40xi32>, tensor<i32>) -> tensor<1xi32>
  %x = stablehlo.reshape %x1 : (tensor<1xi32>) -> tensor<i32>
  %y1 = stablehlo.dynamic_slice %p, %j, sizes = [1] : (tensor<40xi32>, tensor<i32>) -> tensor<1xi32>
  %y = stablehlo.reshape %y1 : (tensor<1xi32>) -> tensor<i32>
  %at_i = stablehlo.broadcast_in_dim %i, dims = [] : (tensor<i32>) -> tensor<1xi32>
  %p1 = "stablehlo.scatter"(%p, %at_i, %y) <{indices_are_sorted = true, scatter_dimension_numbers =
      #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
  ^bb0(%old: tensor<i32>, %new: tensor<i32>):
    stablehlo.return %new : tensor<i32>
  }) : (tensor<40xi32>, tensor<1xi32>, tensor<i32>) -> tensor<40xi32>
  %at_j = stablehlo.broadcast_in_dim %j, dims = [] : (tensor<i32>) -> tensor<1xi32>
  %p2 = "stablehlo.scatter"(%p1, %at_j, %x) <{indices_are_sorted = true, scatter_dimension_numbers =
      #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
  ^bb0(%old: tensor<i32>, %new: tensor<i32>):
    stablehlo.return %new : tensor<i32>
  }) : (tensor<40xi32>, tensor<1xi32>, tensor<i32>) -> tensor<40xi32>
  return %p2 : tensor<40xi32>
}
"""


def _permutation(swaps):
    perm = np.arange(len(swaps))
    for i, j in enumerate(swaps):
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def test_a_permutation_from_swaps_runs_as_one_dispatch():
    swaps = np.random.default_rng(0).integers(0, 40, 40).astype(np.int32)
    swaps[5] = 99  # outside the array: the read clamps to the last entry, the write to index 99 is dropped
    assert _taken(PERMUTATION)
    (perm,) = _run(PERMUTATION, swaps)
    want = np.arange(40)
    for i, j in enumerate(swaps):
        x, y = want[i], want[min(j, 39)]
        want[i] = y
        if j < 40:
            want[j] = x
    np.testing.assert_array_equal(perm, want)


def test_the_switches_and_other_targets_keep_the_loop():
    assert not _taken(PERMUTATION, disable_passes=[PASS])
    assert not _taken(PERMUTATION, optimize=False)
    assert not _taken(PERMUTATION, target="vulkan-spirv")
    swaps = np.arange(40)[::-1].astype(np.int32)
    (perm,) = _run(PERMUTATION, swaps, disable_passes=[PASS])
    np.testing.assert_array_equal(perm, _permutation(swaps))


# A recurrence on an f32 array read and written an element a trip (dynamic_update_slice), with scalars
# from outside the loop (an argument and a value computed before it), converts, selects, a clamp, abs,
# negate, and a scatter that adds.
RECURRENCE = """
func.func @main(%x: tensor<50xf32>, %scale: tensor<f32>, %counts: tensor<8xi32>) -> (tensor<50xf32>, tensor<8xi32>, tensor<i32>) {
  %half = stablehlo.multiply %scale, %scale : tensor<f32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %end = stablehlo.constant dense<50> : tensor<i32>
  %r:4 = stablehlo.while(%i = %one, %a = %x, %c = %counts, %n = %one) : tensor<i32>, tensor<50xf32>, tensor<8xi32>, tensor<i32>
  cond {
    %more = stablehlo.compare LT, %i, %end, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %more : tensor<i1>
  } do {
    %before = stablehlo.subtract %i, %one : tensor<i32>
    %p1 = stablehlo.dynamic_slice %a, %before, sizes = [1] : (tensor<50xf32>, tensor<i32>) -> tensor<1xf32>
    %p = stablehlo.reshape %p1 : (tensor<1xf32>) -> tensor<f32>
    %q1 = stablehlo.dynamic_slice %a, %i, sizes = [1] : (tensor<50xf32>, tensor<i32>) -> tensor<1xf32>
    %q = stablehlo.reshape %q1 : (tensor<1xf32>) -> tensor<f32>
    %scaled = stablehlo.multiply %p, %half : tensor<f32>
    %sum = stablehlo.add %scaled, %q : tensor<f32>
    %neg = stablehlo.negate %sum : tensor<f32>
    %mag = stablehlo.abs %neg : tensor<f32>
    %lo = stablehlo.constant dense<-3.0> : tensor<f32>
    %hi = stablehlo.constant dense<3.0> : tensor<f32>
    %clamped = stablehlo.clamp %lo, %sum, %hi : tensor<f32>
    %big = stablehlo.compare GT, %mag, %hi, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %new = stablehlo.select %big, %clamped, %sum : tensor<i1>, tensor<f32>
    %new1 = stablehlo.reshape %new : (tensor<f32>) -> tensor<1xf32>
    %a2 = stablehlo.dynamic_update_slice %a, %new1, %i : (tensor<50xf32>, tensor<1xf32>, tensor<i32>) -> tensor<50xf32>
    %eight = stablehlo.constant dense<8.0> : tensor<f32>
    %place = stablehlo.add %mag, %eight : tensor<f32>
    %bucket = stablehlo.convert %place : (tensor<f32>) -> tensor<f32>
    %seven = stablehlo.constant dense<7> : tensor<i32>
    %slot = stablehlo.remainder %i, %seven : tensor<i32>
    %at = stablehlo.reshape %slot : (tensor<i32>) -> tensor<1xi32>
    %c2 = "stablehlo.scatter"(%c, %at, %one) <{scatter_dimension_numbers =
        #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>}> ({
    ^bb0(%old: tensor<i32>, %add: tensor<i32>):
      %s = stablehlo.add %old, %add : tensor<i32>
      stablehlo.return %s : tensor<i32>
    }) : (tensor<8xi32>, tensor<1xi32>, tensor<i32>) -> tensor<8xi32>
    %flag = stablehlo.convert %big : (tensor<i1>) -> tensor<i32>
    %n2 = stablehlo.add %n, %flag : tensor<i32>
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %next, %a2, %c2, %n2 : tensor<i32>, tensor<50xf32>, tensor<8xi32>, tensor<i32>
  }
  return %r#1, %r#2, %r#3 : tensor<50xf32>, tensor<8xi32>, tensor<i32>
}
"""


def test_remainder_is_not_computed_so_the_loop_stays():
    # stablehlo.remainder is not among the ops the kernel computes: the loop stays a host loop, and is right.
    assert not _taken(RECURRENCE)


def test_a_recurrence_with_values_from_outside_runs_as_one_dispatch():
    src = RECURRENCE.replace("%slot = stablehlo.remainder %i, %seven : tensor<i32>",
                             "%slot = stablehlo.minimum %i, %seven : tensor<i32>")
    assert _taken(src)
    rng = np.random.default_rng(1)
    x = rng.standard_normal(50).astype(np.float32) * 2
    scale = np.float32(0.8)
    counts = np.arange(8, dtype=np.int32)
    a, c, n = _run(src, x, scale, counts)
    want, want_c, want_n = x.copy(), counts.copy(), 1
    half = np.float32(scale * scale)
    for i in range(1, 50):
        s = np.float32(want[i - 1] * half) + want[i]
        big = abs(s) > 3
        want[i] = np.clip(s, -3, 3) if big else s
        want_c[min(i, 7)] += 1
        want_n += int(big)
    np.testing.assert_allclose(a, want, rtol=1e-6)
    np.testing.assert_array_equal(c, want_c)
    assert int(n) == want_n


# The old version of the array is read after the new one is made: written in place, the read would see
# the new value, so the loop must stay a host loop.
_SWAP_STEP = """
%unit = stablehlo.constant dense<1> : tensor<i32>
%next = stablehlo.add %i, %unit : tensor<i32>
%v = stablehlo.dynamic_slice %a, %next, sizes = [1] : (tensor<10xi32>, tensor<i32>) -> tensor<1xi32>
%a2 = stablehlo.dynamic_update_slice %a, %v, %i : (tensor<10xi32>, tensor<1xi32>, tensor<i32>) -> tensor<10xi32>
%old = stablehlo.dynamic_slice %a, %i, sizes = [1] : (tensor<10xi32>, tensor<i32>) -> tensor<1xi32>
%a3 = stablehlo.dynamic_update_slice %a2, %old, %next : (tensor<10xi32>, tensor<1xi32>, tensor<i32>) -> tensor<10xi32>
"""
READ_AFTER_UPDATE = f"""
func.func @main(%x: tensor<10xi32>) -> tensor<10xi32> {{
{counted_loop(9, [("%a", "%x", "tensor<10xi32>")], _SWAP_STEP, ["%a3"])}  return %r#1 : tensor<10xi32>
}}
"""


def test_a_read_of_an_array_after_its_update_keeps_the_loop():
    assert not _taken(READ_AFTER_UPDATE)
    x = np.arange(10, dtype=np.int32) * 10
    (got,) = _run(READ_AFTER_UPDATE, x)
    want = x.copy()
    for i in range(9):
        want[i], want[i + 1] = want[i + 1], want[i]  # each trip swaps i and i + 1: the first entry walks right
    np.testing.assert_array_equal(got, want)


def test_loops_over_whole_arrays_are_left_alone():
    step = "%a2 = stablehlo.add %a, %a : tensor<16xf32>"
    src = f"""
func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {{
{counted_loop(5, [("%a", "%x", "tensor<16xf32>")], step, ["%a2"])}  return %r#1 : tensor<16xf32>
}}
"""
    assert not _taken(src)
    (got,) = _run(src, np.ones(16, np.float32))
    np.testing.assert_array_equal(got, np.full(16, 32, np.float32))


def test_jax_lu_permutation_and_solve():
    jax = pytest.importorskip("jax")
    from oxla.importers.jax import import_jax

    rng = np.random.default_rng(2)
    a = rng.standard_normal((64, 64)).astype(np.float32)
    b = rng.standard_normal((64, 2)).astype(np.float32)
    for fn, args in ((jax.numpy.linalg.solve, (a, b)), (lambda m: jax.scipy.linalg.lu(m)[0], (a,))):
        imported = import_jax(fn, *args)
        assert _taken(imported.module)
        got = runtime.load(compile(imported.module)).main(*args)
        want = np.asarray(jax.jit(fn)(*args))
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_an_update_of_an_array_from_outside_keeps_the_loop():
    # Each trip writes into the argument %x itself (not the carried copy): in place, that would change %x,
    # which the next trip reads again as it was. (The trip reads %a too, so that the loop still carries it.)
    step = """
%zero = stablehlo.constant dense<0> : tensor<i32>
%v = stablehlo.dynamic_slice %a, %zero, sizes = [1] : (tensor<6xi32>, tensor<i32>) -> tensor<1xi32>
%a2 = stablehlo.dynamic_update_slice %x, %v, %i : (tensor<6xi32>, tensor<1xi32>, tensor<i32>) -> tensor<6xi32>
"""
    src = f"""
func.func @main(%x: tensor<6xi32>) -> tensor<6xi32> {{
{counted_loop(6, [("%a", "%x", "tensor<6xi32>")], step, ["%a2"])}  return %r#1 : tensor<6xi32>
}}
"""
    assert not _taken(src)
    x = np.arange(6, dtype=np.int32) + 10
    np.testing.assert_array_equal(_run(src, x)[0], [10, 11, 12, 13, 14, 10])
