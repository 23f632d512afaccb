"""oxla-host-loop-inits and the loop-invariant code motion after it: host loops (a scan, a fori_loop, a
while_loop) update their carried tensors in place, with the results of the loops as written;
oxla-host-scalar-dispatches: a fori_loop's counter and index arithmetic run on the host."""

import gc
import re

import numpy as np
import pytest

from oxla import ir, runtime
from oxla.pipelines import compile

from loops import counted_loop, rolled

ROWS, WIDTH = 64, 32
STACK_BYTES = ROWS * WIDTH * 4


def _scan(start: str, limit: str = "") -> str:
    """@main: c = 0.5 c + x[i] over the rows of x, each c written into row i of a stack that starts as
    `start`: "zeros", or "argument" (%s0); `limit` adds an exit once c[0] passes it (a while loop)."""
    t, row, stack = f"tensor<{WIDTH}xf32>", f"tensor<1x{WIDTH}xf32>", f"tensor<{ROWS}x{WIDTH}xf32>"
    exit_test = "" if not limit else f"""
      %first = stablehlo.slice %c [0:1] : ({t}) -> tensor<1xf32>
      %f = stablehlo.reshape %first : (tensor<1xf32>) -> tensor<f32>
      %cap = stablehlo.constant dense<{limit}> : tensor<f32>
      %small = stablehlo.compare LT, %f, %cap, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %go = stablehlo.and %lt, %small : tensor<i1>"""
    signature, init = (f", %s0: {stack}", "%s0") if start == "argument" else ("", "%zeros")
    return f"""func.func @main(%x: {stack}{signature}) -> {stack} {{
  %zero = stablehlo.constant dense<0.0> : {t}
  %zeros = stablehlo.constant dense<0.0> : {stack}
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %i0, %c = %zero, %s = {init}) : tensor<i32>, {t}, {stack}
    cond {{
      %n = stablehlo.constant dense<{ROWS}> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>{exit_test}
      stablehlo.return {"%go" if limit else "%lt"} : tensor<i1>
    }} do {{
      %z = stablehlo.constant dense<0> : tensor<i32>
      %xi = stablehlo.dynamic_slice %x, %i, %z, sizes = [1, {WIDTH}] : ({stack}, tensor<i32>, tensor<i32>) -> {row}
      %v = stablehlo.reshape %xi : ({row}) -> {t}
      %half = stablehlo.constant dense<0.5> : {t}
      %m = stablehlo.multiply %c, %half : {t}
      %c2 = stablehlo.add %m, %v : {t}
      %c2r = stablehlo.reshape %c2 : ({t}) -> {row}
      %s2 = stablehlo.dynamic_update_slice %s, %c2r, %i, %z : ({stack}, {row}, tensor<i32>, tensor<i32>) -> {stack}
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %c2, %s2 : tensor<i32>, {t}, {stack}
    }}
  return %r#2 : {stack}
}}
"""


ZEROS = _scan("zeros")
FROM_ARGUMENT = _scan("argument")


def _expected(x: np.ndarray, stack: np.ndarray, limit: float | None = None) -> np.ndarray:
    """The scan in numpy, in f32 as the program computes it."""
    out, c = stack.copy(), np.zeros(WIDTH, np.float32)
    for i in range(ROWS):
        c = c * np.float32(0.5) + x[i]
        out[i] = c
        if limit is not None and not c[0] < limit:
            break
    return out


def _whole_copies(text: str, **options) -> int:
    """How many commands of @main copy a buffer the stack's size, compiled to the end of `stream`."""
    streamed = ir.to_text(compile(text, compile_to="stream", **options))
    main = streamed.split("util.func public @main")[1].split("util.func public")[0]
    return len(re.findall(rf"stream\.cmd\.copy [^\n]*, %c{STACK_BYTES} :", main))


def _inputs(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((ROWS, WIDTH)).astype(np.float32),
            rng.standard_normal((ROWS, WIDTH)).astype(np.float32))


def test_a_scan_into_zeros_writes_its_stack_in_place():
    assert _whole_copies(ZEROS) == 0
    assert _whole_copies(ZEROS, disable_passes=["oxla-host-loop-inits"]) >= 1  # IREE alone: a copy per trip
    x, _ = _inputs()
    got = runtime.load(compile(ZEROS)).main(x)
    np.testing.assert_array_equal(got, _expected(x, np.zeros((ROWS, WIDTH), np.float32)))


def test_a_loop_over_an_argument_updates_it_in_place_and_the_callers_array_stays():
    assert _whole_copies(FROM_ARGUMENT) == 0
    assert _whole_copies(FROM_ARGUMENT, disable_passes=["oxla-host-loop-inits"]) >= 1
    module = runtime.load(compile(FROM_ARGUMENT), device="local-sync")
    assert module.main._vm_function.reflection["oxla.written_arguments"] == "1"  # so oxla.runtime copies it
    x, stack = _inputs(1)
    kept = stack.copy()
    for _ in range(2):  # the second call sees the same arguments
        np.testing.assert_array_equal(module.main(x, stack), _expected(x, kept))
        np.testing.assert_array_equal(stack, kept)


def test_an_unrolled_loop_over_an_argument_has_it_handed_over_past_the_guard(monkeypatch):
    """Unrolled four steps a trip (oxla-unroll-loops), the loop reaches the pass rotated, inside an
    scf.if whose other branch hands the argument back for a loop of no trips; that branch is no other
    reader."""
    from oxla.transforms import host_loops

    assert _whole_copies(FROM_ARGUMENT) == 0
    monkeypatch.setattr(host_loops, "_skipped_loop_start", lambda use, loop: False)
    assert _whole_copies(FROM_ARGUMENT) >= 1  # the case arises: read as a second reader, a copy per trip


def test_an_argument_read_after_the_loop_too_is_not_handed_over():
    stack = f"tensor<{ROWS}x{WIDTH}xf32>"
    text = FROM_ARGUMENT.replace(f") -> {stack} {{", f") -> ({stack}, {stack}) {{").replace(
        f"  return %r#2 : {stack}", f"  %twice = stablehlo.add %s0, %s0 : {stack}\n  return %r#2, %twice : {stack}, {stack}")
    assert "%twice" in text
    module = runtime.load(compile(text), device="local-sync")
    x, start = _inputs(5)
    scanned, twice = module.main(x, start)
    np.testing.assert_array_equal(scanned, _expected(x, start))
    np.testing.assert_array_equal(twice, start + start)  # the loop did not write the argument under it


def _while_reads_back(text: str, **options) -> int:
    """How many values @main's scf.while reads back from the device every trip (flow.tensor.load)."""
    flow = ir.to_text(compile(text, compile_to="flow", **options))
    main = flow.split("util.func public @main")[1]
    return main[main.index("scf.while"):main.index("scf.condition")].count("flow.tensor.load")


def test_a_while_loop_with_a_data_dependent_exit():
    text = _scan("zeros", limit="2.5")
    assert _whole_copies(text) == 0
    assert _while_reads_back(text) == 1  # the exit test; the counter and the row index are host scalars
    assert _while_reads_back(text, disable_passes=["oxla-host-scalar-dispatches"]) > 1
    x, _ = _inputs(2)
    x[:, 0] = np.abs(x[:, 0])  # c[0] grows past the limit partway
    want = _expected(x, np.zeros((ROWS, WIDTH), np.float32), limit=2.5)
    assert 0 < np.count_nonzero(want.any(axis=1)) < ROWS  # the exit is taken before the last row
    np.testing.assert_array_equal(runtime.load(compile(text)).main(x), want)


RECURRENCE = """func.func @main(%w: tensor<64x64xf32>, %h0: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %i0, %h = %h0) : tensor<i32>, tensor<16x64xf32>
    cond {
      %n = stablehlo.constant dense<16> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %p = stablehlo.dot_general %h, %w, contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
      %h2 = stablehlo.tanh %p : tensor<16x64xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2 : tensor<i32>, tensor<16x64xf32>
    }
  return %r#1 : tensor<16x64xf32>
}
"""


def _packs_in_loop(*disabled: str, pack: str = "flow.tensor.encode") -> int:
    """How many packs (data tiling's `flow.tensor.encode`s, or `pack` ops) @main's loop runs every trip,
    one step a trip (oxla-unroll-loops left out)."""
    flow = ir.to_text(compile(RECURRENCE, compile_to="flow", disable_passes=rolled(disabled)))
    main = flow.split("util.func public @main")[1]
    loop = main[main.index("scf.for"):main.index("scf.yield")]
    return loop.count(pack)


def test_loop_invariant_packs_move_out_of_the_loop():
    # IREE's data tiling (oxla's matmul kernel, which takes such loops on AVX2, left out), of 16 rows: up to
    # GEMV_QUERIES rows by a run-time matrix are reductions without data tiling (test_cpu_tiles.py)
    kernel = "oxla-llvmcpu-matmul-kernel"
    assert _packs_in_loop(kernel) == 1  # the carried state's; the matrix is packed once, before the loop
    assert _packs_in_loop(kernel, "loop-invariant-code-motion") == 2
    # the kernel's pack of the matrix, a transpose, where the kernel takes it
    if "oxla_f32_matmul" in ir.to_text(compile(RECURRENCE, compile_to="input")):
        assert _packs_in_loop(pack="transpose") == 0 and _packs_in_loop("loop-invariant-code-motion", pack="transpose") == 1
    rng = np.random.default_rng(3)
    w, h = (rng.standard_normal((64, 64)) * 0.1).astype(np.float32), rng.standard_normal((16, 64)).astype(np.float32)
    want = h.astype(np.float64)
    for _ in range(16):
        want = np.tanh(want @ w)
    np.testing.assert_allclose(runtime.load(compile(RECURRENCE)).main(w, h), want, rtol=2e-5, atol=2e-5)




FORI = """func.func @main(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%trip = %zero, %i = %one, %s = %x) : tensor<i32>, tensor<i32>, tensor<16x8xf32>
    cond {
      %n = stablehlo.constant dense<15> : tensor<i32>
      %lt = stablehlo.compare LT, %trip, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %c0 = stablehlo.constant dense<0> : tensor<i32>
      %c16 = stablehlo.constant dense<16> : tensor<i32>
      %back = stablehlo.subtract %i, %c1 : tensor<i32>
      %neg = stablehlo.compare LT, %back, %c0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %wrapped = stablehlo.add %back, %c16 : tensor<i32>
      %prev = stablehlo.select %neg, %wrapped, %back : tensor<i1>, tensor<i32>
      %pr = stablehlo.dynamic_slice %s, %prev, %c0, sizes = [1, 8] : (tensor<16x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
      %cr = stablehlo.dynamic_slice %s, %i, %c0, sizes = [1, 8] : (tensor<16x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
      %half = stablehlo.constant dense<0.5> : tensor<1x8xf32>
      %m = stablehlo.multiply %pr, %half : tensor<1x8xf32>
      %row = stablehlo.add %m, %cr : tensor<1x8xf32>
      %at = stablehlo.reshape %i : (tensor<i32>) -> tensor<1xi32>
      %u = stablehlo.reshape %row : (tensor<1x8xf32>) -> tensor<8xf32>
      %s2 = "stablehlo.scatter"(%s, %at, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        stablehlo.return %b : tensor<f32>
      }) : (tensor<16x8xf32>, tensor<1xi32>, tensor<8xf32>) -> tensor<16x8xf32>
      %i2 = stablehlo.add %i, %c1 : tensor<i32>
      %t2 = stablehlo.add %trip, %c1 : tensor<i32>
      stablehlo.return %t2, %i2, %s2 : tensor<i32>, tensor<i32>, tensor<16x8xf32>
    }
  return %r#2 : tensor<16x8xf32>
}
"""


def _reads_back_per_trip(disable_passes: tuple[str, ...] = ()) -> int:
    """How many values @main's loop reads back from the device every trip (flow.tensor.load), one step a
    trip (oxla-unroll-loops left out)."""
    flow = ir.to_text(compile(FORI, compile_to="flow", disable_passes=rolled(disable_passes)))
    main = flow.split("util.func public @main")[1]
    return main[main.index("scf.for"):main.index("scf.yield")].count("flow.tensor.load")


def test_a_fori_loops_index_arithmetic_runs_on_the_host():
    assert _reads_back_per_trip() == 0
    assert _reads_back_per_trip(disable_passes=["oxla-host-scalar-dispatches"]) >= 2
    x = np.random.default_rng(6).standard_normal((16, 8)).astype(np.float32)
    np.testing.assert_array_equal(runtime.load(compile(FORI)).main(x), _fori_expected(x))


def _fori_expected(x: np.ndarray) -> np.ndarray:
    want = x.copy()
    for i in range(1, len(x)):
        want[i] = want[i - 1] * np.float32(0.5) + want[i]
    return want


def test_vulkan_runs_the_loops_where_it_exists():
    if not any(d.name == "vulkan" and d.available for d in runtime.devices()):
        pytest.skip("no vulkan device on this machine")
    x, _ = _inputs(4)
    got = runtime.load(compile(ZEROS, target="vulkan-spirv"), device="vulkan").main(x)
    np.testing.assert_allclose(got, _expected(x, np.zeros((ROWS, WIDTH), np.float32)), rtol=1e-6, atol=1e-6)
    rows = x[:16, :8].copy()
    got = runtime.load(compile(FORI, target="vulkan-spirv"), device="vulkan").main(rows)
    np.testing.assert_allclose(got, _fori_expected(rows), rtol=1e-6, atol=1e-6)


STACK = f"tensor<{ROWS}x{WIDTH}xf32>"
_TWO_STACKS_STEP = f"""
%z = stablehlo.constant dense<0> : tensor<i32>
%row = stablehlo.dynamic_slice %x, %i, %z, sizes = [1, {WIDTH}] : ({STACK}, tensor<i32>, tensor<i32>) -> tensor<1x{WIDTH}xf32>
%neg = stablehlo.negate %row : tensor<1x{WIDTH}xf32>
%a2 = stablehlo.dynamic_update_slice %a, %row, %i, %z : ({STACK}, tensor<1x{WIDTH}xf32>, tensor<i32>, tensor<i32>) -> {STACK}
%b2 = stablehlo.dynamic_update_slice %b, %neg, %i, %z : ({STACK}, tensor<1x{WIDTH}xf32>, tensor<i32>, tensor<i32>) -> {STACK}
"""
TWO_STACKS = f"""func.func @main(%x: {STACK}) -> ({STACK}, {STACK}) {{
  %zeros = stablehlo.constant dense<0.0> : {STACK}
{counted_loop(ROWS, [("%a", "%zeros", STACK), ("%b", "%zeros", STACK)], _TWO_STACKS_STEP, ["%a2", "%b2"])}  return %r#1, %r#2 : {STACK}, {STACK}
}}
"""


def test_two_stacks_from_one_constant_stay_apart_and_in_place():
    # moving either start (or the counter's) to the device had IREE update both stacks in one buffer;
    # the second now starts from a splat IREE cannot fold into the first
    x, _ = _inputs(7)
    a, b = runtime.load(compile(TWO_STACKS), device="local-sync").main(x)
    np.testing.assert_array_equal(a, x)
    np.testing.assert_array_equal(b, -x)
    assert _whole_copies(TWO_STACKS) == 0


def test_a_branch_lookup_outside_the_guard_answers_none():
    # oxla-host-loop-inits asks which branch of an scf.if holds a loop; for a loop outside that if, the walk
    # up reached the module, whose (null) block it then read: the process crashed on StableHLO's
    # random_gamma conformance programs.
    from oxla.transforms.host_loops import _branch

    module = ir.parse("""
func.func @f(%c: i1) -> i32 {
  %0 = scf.if %c -> i32 {
    %a = arith.constant 1 : i32
    scf.yield %a : i32
  } else {
    %b = arith.constant 2 : i32
    scf.yield %b : i32
  }
  %d = arith.constant 3 : i32
  %s = arith.addi %0, %d : i32
  return %s : i32
}
""")
    ops = ir.ops(module)
    guard = next(op for op in ops if op.name == "scf.if")
    constants = [op for op in ops if op.name == "arith.constant"]
    assert [_branch(guard, op) for op in constants] == [0, 1, -1]
    for _ in range(3000):  # as often as a pass over a large program asks: the null block's damage shows
        _branch(guard, constants[2])
    gc.collect()
    assert sum(1 for op in ir.ops(module) for r in op.results for u in r.uses if ir.user(u).name) == 5
