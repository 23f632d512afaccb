"""oxla-device-indexed-slices: a loop's slices at indices it computes on the device run without the host
reading the index back every trip, and compute what the slices did."""

import pathlib
import re

import numpy as np

from oxla import ir, runtime
from oxla.pipelines import compile

from loops import rolled

LIT = pathlib.Path(__file__).parents[1] / "lit" / "transforms" / "oxla-device-indexed-slices.mlir"


def _program(name: str) -> str:
    """The lit test's function `name`, renamed main, as a module of its own."""
    for text in LIT.read_text().split("// -----"):
        if f"func.func @{name}(" in text:
            return text.replace(f"@{name}(", "@main(")
    raise KeyError(name)


def _reads_back_in_loop(program: str, **options) -> int:
    """How many scalars @main's loop body loads from device memory, compiled to the end of `stream`."""
    streamed = ir.to_text(compile(program, compile_to="stream", **options))
    main = streamed.split("util.func public @main")[1]
    body = main[main.index("^bb2"):]
    body = body[:body.index("cf.br ^bb1")]
    return len(re.findall(r"stream\.resource\.load", body))


def _swaps(pivots: np.ndarray) -> np.ndarray:
    perm = np.arange(len(pivots), dtype=np.int32)
    for i, p in enumerate(pivots):
        p = min(max(int(p), 0), len(pivots) - 1)
        perm[i], perm[p] = perm[p], perm[i]
    return perm


def test_swaps_at_device_indices_stay_on_the_device():
    program = _program("swaps")
    # On CPUs the whole loop is one dispatch (oxla-llvmcpu-scalar-loops); the host loop is what other
    # targets run, counted one step a trip (its eight trips unrolled leave no loop).
    host_loop = ["oxla-llvmcpu-scalar-loops"]
    assert _reads_back_in_loop(program, disable_passes=rolled(host_loop)) == 0
    for module in (runtime.load(compile(program, disable_passes=host_loop)),
                   runtime.load(compile(program, disable_passes=rolled(host_loop))), runtime.load(compile(program))):
        for pivots in ([3, 3, 7, 3, 4, 6, 7, 7], [0, 1, 2, 3, 4, 5, 6, 7], [9, -2, 5, 5, 0, 1, 7, 7]):
            pivots = np.array(pivots, np.int32)
            np.testing.assert_array_equal(np.asarray(module.main(pivots)), _swaps(pivots))


def test_a_select_by_a_device_flag_in_a_loop():
    program = _program("flags")
    assert _reads_back_in_loop(program) == 0
    x = np.array([1.5, -2.0, 3.0, 0.5], np.float32)
    expected = x.copy()
    for i in range(3):
        if i % 2:
            expected = -expected if expected[0] > 0 else expected
    np.testing.assert_array_equal(np.asarray(runtime.load(compile(program)).main(x)), expected)
