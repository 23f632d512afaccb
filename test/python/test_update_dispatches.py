"""oxla-in-place-slice-updates: a dispatch that computes a slice from the tensor it updates writes the
slice in place, one dispatch a trip instead of two and a transient buffer, where every element it writes
depends only on elements at the same place; other updates keep IREE's separate copy, with the same
results."""

import re

import numpy as np
import pytest

from oxla import ir, runtime
from oxla.pipelines import compile

from loops import counted_loop, rolled

ROWS, WIDTH = 16, 64
T = f"tensor<{ROWS}x{WIDTH}xf32>"


def _loop(body: str, *, start: int = 1, fori: bool = True) -> str:
    """@main: a loop over i in [start, ROWS) whose `body` turns %x into %x2 (tensor<i32> %i). `fori`:
    a trip count carried next to i, as JAX's fori_loop writes it (IREE then updates the slice with a
    dispatch of its own); else i is the loop's counter (as in a scan)."""
    carried, trips = ("%t = %t0, %i = %i0", "%t") if fori else ("%i = %i0", "%i")
    limit, types = (ROWS - start, "tensor<i32>, tensor<i32>") if fori else (ROWS, "tensor<i32>")
    step, results = ("%t2 = stablehlo.add %t, %one : tensor<i32>", "%t2, %i2") if fori else ("", "%i2")
    return f"""func.func @main(%x0: {T}) -> {T} {{
  %i0 = stablehlo.constant dense<{start}> : tensor<i32>
  %t0 = stablehlo.constant dense<0> : tensor<i32>
  %r:{3 if fori else 2} = stablehlo.while({carried}, %x = %x0) : {types}, {T}
    cond {{
      %n = stablehlo.constant dense<{limit}> : tensor<i32>
      %lt = stablehlo.compare LT, {trips}, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %z = stablehlo.constant dense<0> : tensor<i32>
      %one = stablehlo.constant dense<1> : tensor<i32>
{body}
      %i2 = stablehlo.add %i, %one : tensor<i32>
      {step}
      stablehlo.return {results}, %x2 : {types}, {T}
    }}
  return %r#{2 if fori else 1} : {T}
}}
"""


# x[i] = 0.5 x[i-1] + x[i] as JAX writes it in a fori_loop (`x.at[i].set(x[i - 1] * 0.5 + x[i])`: the
# index i - 1 wrapped below zero, the row written with a scatter): both rows read where the row is
# written, in every column. IREE updates the row with a dispatch of its own.
R = f"tensor<1x{WIDTH}xf32>"
PREVIOUS_BODY = (f"""      %back = stablehlo.subtract %i, %one : tensor<i32>
      %neg = stablehlo.compare LT, %back, %z, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %rows = stablehlo.constant dense<{ROWS}> : tensor<i32>
      %wrapped = stablehlo.add %back, %rows : tensor<i32>
      %p = stablehlo.select %neg, %wrapped, %back : tensor<i1>, tensor<i32>
      %a = stablehlo.dynamic_slice %x, %p, %z, sizes = [1, {WIDTH}] : ({T}, tensor<i32>, tensor<i32>) -> {R}
      %b = stablehlo.dynamic_slice %x, %i, %z, sizes = [1, {WIDTH}] : ({T}, tensor<i32>, tensor<i32>) -> {R}
      %h = stablehlo.constant dense<0.5> : {R}
      %m = stablehlo.multiply %a, %h : {R}
      %s = stablehlo.add %m, %b : {R}
      %at = stablehlo.reshape %i : (tensor<i32>) -> tensor<1xi32>
      %u = stablehlo.reshape %s : ({R}) -> tensor<{WIDTH}xf32>
      %x2 = "stablehlo.scatter"(%x, %at, %u) <{{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}}> ({{
      ^bb0(%o: tensor<f32>, %n: tensor<f32>):
        stablehlo.return %n : tensor<f32>
      }}) : ({T}, tensor<1xi32>, tensor<{WIDTH}xf32>) -> {T}""", 1)

# x[i] = x[i] @ w: each element of the row from every element of it.
PRODUCT_BODY = (f"""      %b = stablehlo.dynamic_slice %x, %i, %z, sizes = [1, {WIDTH}] : ({T}, tensor<i32>, tensor<i32>) -> {R}
      %w = stablehlo.iota dim = 0 : tensor<{WIDTH}x{WIDTH}xf32>
      %k = stablehlo.constant dense<0.01> : tensor<{WIDTH}x{WIDTH}xf32>
      %wk = stablehlo.multiply %w, %k : tensor<{WIDTH}x{WIDTH}xf32>
      %s = stablehlo.dot %b, %wk : ({R}, tensor<{WIDTH}x{WIDTH}xf32>) -> {R}
      %x2 = stablehlo.dynamic_update_slice %x, %s, %i, %z : ({T}, {R}, tensor<i32>, tensor<i32>) -> {T}""", 0)

# x[i, 1:] = x[i, :-1] + 1: the read window sits one column left of the written one, so written in
# place an element would be overwritten before its right neighbour reads it.
SHIFTED_BODY = (f"""      %a = stablehlo.dynamic_slice %x, %i, %z, sizes = [1, {WIDTH - 1}] : ({T}, tensor<i32>, tensor<i32>) -> tensor<1x{WIDTH - 1}xf32>
      %c = stablehlo.constant dense<1.0> : tensor<1x{WIDTH - 1}xf32>
      %s = stablehlo.add %a, %c : tensor<1x{WIDTH - 1}xf32>
      %x2 = stablehlo.dynamic_update_slice %x, %s, %i, %one : ({T}, tensor<1x{WIDTH - 1}xf32>, tensor<i32>, tensor<i32>) -> {T}""", 0)

# x[i] = reverse(x[i]) + x[i-1]: the row read where it is written, but each element from another column.
REVERSED_BODY = (f"""      %p = stablehlo.subtract %i, %one : tensor<i32>
      %a = stablehlo.dynamic_slice %x, %p, %z, sizes = [1, {WIDTH}] : ({T}, tensor<i32>, tensor<i32>) -> tensor<1x{WIDTH}xf32>
      %b = stablehlo.dynamic_slice %x, %i, %z, sizes = [1, {WIDTH}] : ({T}, tensor<i32>, tensor<i32>) -> tensor<1x{WIDTH}xf32>
      %r = stablehlo.reverse %b, dims = [1] : tensor<1x{WIDTH}xf32>
      %s = stablehlo.add %r, %a : tensor<1x{WIDTH}xf32>
      %x2 = stablehlo.dynamic_update_slice %x, %s, %i, %z : ({T}, tensor<1x{WIDTH}xf32>, tensor<i32>, tensor<i32>) -> {T}""", 1)


# x[i, 1:] = x[i, :-1]: the row moved within itself, no arithmetic (IREE makes it one copy dispatch whose
# loads and stores of the tensor overlap).
MOVED_BODY = (f"""      %a = stablehlo.dynamic_slice %x, %i, %z, sizes = [1, {WIDTH - 1}] : ({T}, tensor<i32>, tensor<i32>) -> tensor<1x{WIDTH - 1}xf32>
      %x2 = stablehlo.dynamic_update_slice %x, %a, %i, %one : ({T}, tensor<1x{WIDTH - 1}xf32>, tensor<i32>, tensor<i32>) -> {T}""", 0)

# x[1:] = x[:-1], three times: every row moved one down (a sliding window over a cache).
ROLLED_BODY = (f"""      %a = stablehlo.slice %x [0:{ROWS - 1}, 0:{WIDTH}] : ({T}) -> tensor<{ROWS - 1}x{WIDTH}xf32>
      %x2 = stablehlo.dynamic_update_slice %x, %a, %one, %z : ({T}, tensor<{ROWS - 1}x{WIDTH}xf32>, tensor<i32>, tensor<i32>) -> {T}""",
               ROWS - 3)

BODIES = {"previous": PREVIOUS_BODY, "product": PRODUCT_BODY, "shifted": SHIFTED_BODY, "reversed": REVERSED_BODY,
          "moved": MOVED_BODY, "rolled": ROLLED_BODY}


def _program(name: str, *, fori: bool = True) -> str:
    body, start = BODIES[name]
    return _loop(body, start=start, fori=fori)


def _expected(name: str, x: np.ndarray) -> np.ndarray:
    """The loop in numpy (each right-hand side read before the row is written, as in the program)."""
    x = x.copy()
    w = np.arange(WIDTH, dtype=np.float32)[:, None] * np.ones(WIDTH, np.float32) * np.float32(0.01)
    for i in range(BODIES[name][1], ROWS):
        if name == "product":
            x[i] = x[i] @ w
        elif name == "previous":
            x[i] = x[i - 1] * np.float32(0.5) + x[i]
        elif name == "shifted":
            x[i, 1:] = x[i, :-1] + np.float32(1)
        elif name == "moved":
            x[i, 1:] = x[i, :-1].copy()
        elif name == "rolled":
            x[1:] = x[:-1].copy()
        else:
            x[i] = x[i, ::-1] + x[i - 1]
    return x


def _streamed_main(program: str, **options) -> str:
    """@main's text, compiled to the end of `stream`."""
    streamed = ir.to_text(compile(program, compile_to="stream", **options))
    return streamed.split("util.func public @main")[1].split("util.func public")[0]


def _loop_commands(program: str, disable_passes: tuple[str, ...] = ()) -> tuple[int, int]:
    """(dispatches, transient allocations) of @main's loop body, compiled to the end of `stream`, one
    step a trip (oxla-unroll-loops left out: its copies of the body and the guard IREE puts around the
    loop it then rotates are not what is counted)."""
    main = _streamed_main(program, disable_passes=rolled(disable_passes))
    loop = main[main.index("^bb2"):]
    loop = loop[:loop.index("cf.br ^bb1")]
    return len(re.findall(r"stream\.cmd\.dispatch @", loop)), loop.count("stream.resource.alloca")


def _x(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((ROWS, WIDTH)).astype(np.float32)


def _check(program: str, name: str, seed: int) -> None:
    x = _x(seed)
    module = runtime.load(compile(program), device="local-sync")
    for _ in range(2):  # the second call sees the same argument
        np.testing.assert_allclose(module.main(x), _expected(name, x), rtol=1e-5, atol=1e-5)


WITHOUT = {"disable_passes": ["oxla-in-place-slice-updates"]}


def test_a_row_computed_from_rows_is_written_in_place():
    program = _program("previous")
    assert _loop_commands(program) == (1, 0)
    assert _loop_commands(program, **WITHOUT) == (2, 1)  # IREE alone: a copy dispatch and its buffer
    _check(program, "previous", 0)


@pytest.mark.parametrize("name", ["shifted", "reversed", "product"])
def test_a_slice_computed_from_elsewhere_in_it_keeps_its_copy(name):
    program = _program(name)
    assert _loop_commands(program) == _loop_commands(program, **WITHOUT) == (2, 1)
    _check(program, name, 1)


@pytest.mark.parametrize("name", ["shifted", "reversed", "product"])
def test_a_slice_computed_from_elsewhere_in_it_gets_a_buffer_of_its_own(name):
    # with the loop's own counter as the index, IREE alone places the slice's dispatch in the tensor it
    # reads (no transient buffer), and the dispatch overwrote elements before reading them: the shifted
    # and reversed rows came out wrong
    program = _program(name, fori=False)
    assert _loop_commands(program, **WITHOUT) == (1, 0)
    assert _loop_commands(program) == (1, 1)
    _check(program, name, 2)


def test_a_row_moved_within_itself_is_copied_out_first():
    # IREE alone copies x[i, :-1] to x[i, 1:] in one dispatch, vector by vector in order: each vector
    # overwrote the start of the next before it was read
    program = _program("moved")
    assert _loop_commands(program, **WITHOUT) == (1, 0)
    assert _loop_commands(program) == (1, 1)
    _check(program, "moved", 4)


@pytest.mark.parametrize("fori", [True, False], ids=["fori", "scan"])
def test_rows_moved_down_come_out_right(fori):
    _check(_program("rolled", fori=fori), "rolled", 5)
    _check(_program("moved", fori=False), "moved", 6)


COLUMNS_COPIED = """func.func @main(%x: tensor<2x5x7xf32>) -> tensor<2x5x7xf32> {
  %a = stablehlo.slice %x [0:2, 0:5, 1:3] : (tensor<2x5x7xf32>) -> tensor<2x5x2xf32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %five = stablehlo.constant dense<5> : tensor<i32>
  %y = stablehlo.dynamic_update_slice %x, %a, %z, %z, %five : (tensor<2x5x7xf32>, tensor<2x5x2xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x5x7xf32>
  return %y : tensor<2x5x7xf32>
}
"""


def test_a_copy_between_disjoint_strided_windows_stays_in_place():
    # columns 1:3 copied to 5:7 (a circular padding): IREE's one in-place copy dispatch is right, and the
    # window is no run of memory a flow.tensor.update could write (split, it came out wrong)
    x = np.random.default_rng(8).standard_normal((2, 5, 7)).astype(np.float32)
    want = x.copy()
    want[:, :, 5:7] = x[:, :, 1:3]
    np.testing.assert_array_equal(runtime.load(compile(COLUMNS_COPIED), device="local-sync").main(x), want)


def test_a_row_read_where_it_is_written_may_go_in_place():
    program = _program("previous", fori=False)
    assert _loop_commands(program) == (1, 0)
    _check(program, "previous", 3)


NOT_IN_A_LOOP = f"""func.func @main(%x: {T}) -> {T} {{
  %two = stablehlo.constant dense<2.0> : {T}
  %y = stablehlo.multiply %x, %two : {T}
  %r = stablehlo.constant dense<3> : tensor<i32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %a = stablehlo.dynamic_slice %y, %r, %z, sizes = [1, {WIDTH - 1}] : ({T}, tensor<i32>, tensor<i32>) -> tensor<1x{WIDTH - 1}xf32>
  %c = stablehlo.constant dense<1.0> : tensor<1x{WIDTH - 1}xf32>
  %s = stablehlo.add %a, %c : tensor<1x{WIDTH - 1}xf32>
  %y2 = stablehlo.dynamic_update_slice %y, %s, %r, %one : ({T}, tensor<1x{WIDTH - 1}xf32>, tensor<i32>, tensor<i32>) -> {T}
  return %y2 : {T}
}}
"""


def test_a_shifted_update_of_a_computed_tensor():
    x = _x(3)
    want = x * np.float32(2)
    want[3, 1:] = want[3, :-1] + np.float32(1)
    np.testing.assert_array_equal(runtime.load(compile(NOT_IN_A_LOOP), device="local-sync").main(x), want)


def test_vulkan_runs_the_merged_dispatch_where_it_exists():
    if not any(d.name == "vulkan" and d.available for d in runtime.devices()):
        pytest.skip("no vulkan device on this machine")
    x = _x(2)
    got = runtime.load(compile(_program("previous"), target="vulkan-spirv"), device="vulkan").main(x)
    np.testing.assert_allclose(got, _expected("previous", x), rtol=1e-6, atol=1e-6)


HALF = f"tensor<{ROWS}x{WIDTH // 2}xf32>"
# Rotary embeddings' rotation: the two halves of each row, mixed element-wise and concatenated again.
ROTATED = f"""func.func @main(%x: {T}, %c: {HALF}, %s: {HALF}) -> {T} {{
  %a = stablehlo.slice %x [0:{ROWS}, 0:{WIDTH // 2}] : ({T}) -> {HALF}
  %b = stablehlo.slice %x [0:{ROWS}, {WIDTH // 2}:{WIDTH}] : ({T}) -> {HALF}
  %ac = stablehlo.multiply %a, %c : {HALF}
  %bs = stablehlo.multiply %b, %s : {HALF}
  %lo = stablehlo.subtract %ac, %bs : {HALF}
  %bc = stablehlo.multiply %b, %c : {HALF}
  %as = stablehlo.multiply %a, %s : {HALF}
  %hi = stablehlo.add %bc, %as : {HALF}
  %r = stablehlo.concatenate %lo, %hi, dim = 1 : ({HALF}, {HALF}) -> {T}
  return %r : {T}
}}
"""
# A row sum and an element-wise piece side by side: the sum keeps IREE's copy.
NARROW = f"tensor<{ROWS}x{WIDTH - 1}xf32>"
SUMMED = f"""func.func @main(%x: {T}) -> {T} {{
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : ({T}, tensor<f32>) -> tensor<{ROWS}xf32>
  %col = stablehlo.reshape %sum : (tensor<{ROWS}xf32>) -> tensor<{ROWS}x1xf32>
  %head = stablehlo.slice %x [0:{ROWS}, 0:{WIDTH - 1}] : ({T}) -> {NARROW}
  %two = stablehlo.constant dense<2.0> : {NARROW}
  %y = stablehlo.multiply %head, %two : {NARROW}
  %r = stablehlo.concatenate %col, %y, dim = 1 : (tensor<{ROWS}x1xf32>, {NARROW}) -> {T}
  return %r : {T}
}}
"""


def _main_dispatches(program: str, **options) -> list[str]:
    """The names of the dispatches @main runs, compiled to the end of `stream`."""
    return re.findall(r"stream\.cmd\.dispatch @\w+::@(\w+)", _streamed_main(program, **options))


def _rotated(x, c, s):
    a, b = x[:, :WIDTH // 2], x[:, WIDTH // 2:]
    return np.concatenate([a * c - b * s, b * c + a * s], axis=1)


def test_element_wise_pieces_of_a_concatenation_write_into_it():
    """Each piece's dispatch stores into its window of the result, not into a buffer IREE then copies."""
    merged = _main_dispatches(ROTATED)
    assert len(merged) == 2 and not any("memcpy" in name for name in merged)
    alone = _main_dispatches(ROTATED, **WITHOUT)
    assert sum("memcpy" in name for name in alone) == 2  # IREE alone: the case arises
    rng = np.random.default_rng(11)
    x, c, s = _x(11), *(rng.standard_normal((ROWS, WIDTH // 2)).astype(np.float32) for _ in range(2))
    module = runtime.load(compile(ROTATED), device="local-sync")
    for _ in range(2):
        np.testing.assert_allclose(module.main(x, c, s), _rotated(x, c, s), rtol=1e-6, atol=1e-6)


def test_a_reduction_piece_keeps_its_copy():
    names = _main_dispatches(SUMMED)
    assert sum("memcpy" in name for name in names) == 1  # the row sum's; the doubled x writes in place
    x = _x(12)
    want = np.concatenate([x.sum(axis=1, keepdims=True), x[:, :-1] * 2], axis=1)
    np.testing.assert_allclose(runtime.load(compile(SUMMED), device="local-sync").main(x), want, rtol=1e-5)


def test_vulkan_runs_pieces_written_into_a_concatenation():
    if not any(d.name == "vulkan" and d.available for d in runtime.devices()):
        pytest.skip("no vulkan device on this machine")
    rng = np.random.default_rng(13)
    x, c, s = _x(13), *(rng.standard_normal((ROWS, WIDTH // 2)).astype(np.float32) for _ in range(2))
    got = runtime.load(compile(ROTATED, target="vulkan-spirv"), device="vulkan").main(x, c, s)
    np.testing.assert_allclose(got, _rotated(x, c, s), rtol=1e-5, atol=1e-5)


# ys[t] = c = 0.9 c + x[t] for every row t: lax.scan with its outputs stacked. Unrolled eight steps a
# trip (oxla-unroll-loops), one element-wise dispatch computes the eight rows, and IREE copied each into
# ys with a slow_memcpy dispatch of its own.
V = f"tensor<{WIDTH}xf32>"
_SCAN_STEP = f"""
%z = stablehlo.constant dense<0> : tensor<i32>
%decay = stablehlo.constant dense<0.9> : {V}
%row = stablehlo.dynamic_slice %x, %i, %z, sizes = [1, {WIDTH}] : ({T}, tensor<i32>, tensor<i32>) -> {R}
%flat = stablehlo.reshape %row : ({R}) -> {V}
%kept = stablehlo.multiply %c, %decay : {V}
%c2 = stablehlo.add %kept, %flat : {V}
%up = stablehlo.reshape %c2 : ({V}) -> {R}
%ys2 = stablehlo.dynamic_update_slice %ys, %up, %i, %z : ({T}, {R}, tensor<i32>, tensor<i32>) -> {T}
"""
SCAN = f"""func.func @main(%x: {T}) -> {T} {{
  %c0 = stablehlo.constant dense<0.0> : {V}
  %ys0 = stablehlo.constant dense<0.0> : {T}
{counted_loop(ROWS, [("%c", "%c0", V), ("%ys", "%ys0", T)], _SCAN_STEP, ["%c2", "%ys2"])}  return %r#2 : {T}
}}
"""


def test_the_steps_of_an_unrolled_scan_store_their_rows_themselves():
    """Each step's row but the carried one (which the next trip reads too, and which IREE could not
    store twice) is stored into ys by the dispatch that computes it."""
    assert sum("memcpy" in name for name in _main_dispatches(SCAN)) == 1
    assert sum("memcpy" in name for name in _main_dispatches(SCAN, **WITHOUT)) == 8  # the case arises
    artifact = compile(SCAN)
    assert "oxla-in-place-slice-updates" in " ".join(artifact.codegen_passes)  # compiled with the pass
    x = _x(14)
    want, c = np.zeros_like(x), np.zeros(WIDTH, np.float32)
    for t in range(ROWS):
        c = c * np.float32(0.9) + x[t]
        want[t] = c
    module = runtime.load(artifact, device="local-sync")
    alone = runtime.load(compile(SCAN, **WITHOUT), device="local-sync").main(x)
    for _ in range(2):
        got = module.main(x)
        np.testing.assert_array_equal(got, alone)  # the same bits as IREE's own updates
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
