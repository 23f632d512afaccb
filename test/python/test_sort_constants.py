"""oxla-legalize-sort-constants: sorts whose operands include small dense constants compile and run."""

import numpy as np
import pytest

from oxla import runtime
from oxla.pipelines import CompileError, compile

# An argsort, descending, of f32[3,12]: oxla-fold-constants folds the iota (36 elements) into a constant.
ARGSORT = """func.func @main(%x: tensor<3x12xf32>) -> (tensor<3x12xf32>, tensor<3x12xi32>) {
  %i = PAYLOAD
  %0:2 = "stablehlo.sort"(%x, %i) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %1 = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<3x12xf32>, tensor<3x12xi32>) -> (tensor<3x12xf32>, tensor<3x12xi32>)
  return %0#0, %0#1 : tensor<3x12xf32>, tensor<3x12xi32>
}
"""
PAYLOAD = np.arange(36, dtype=np.int32).reshape(3, 12) * 7 % 11
PAYLOADS = {
    "iota": "stablehlo.iota dim = 1 : tensor<3x12xi32>",
    "dense": f"stablehlo.constant dense<{PAYLOAD.tolist()}> : tensor<3x12xi32>",
}


# Without oxla's optimizer an iota stays an op, which IREE computes in the dispatch: no constant.
@pytest.mark.parametrize("payload, optimize", [("iota", True), ("dense", True), ("dense", False)])
def test_sorts_carrying_small_constants_compile_and_run(payload, optimize):
    x = np.random.default_rng(0).standard_normal((3, 12)).astype(np.float32)
    values, carried = runtime.load(compile(ARGSORT.replace("PAYLOAD", PAYLOADS[payload]), optimize=optimize),
                                   device="local-sync").main(x)
    order = np.argsort(-x, axis=1, kind="stable")
    np.testing.assert_array_equal(values, np.take_along_axis(x, order, 1))
    expected = order if payload == "iota" else np.take_along_axis(PAYLOAD, order, 1)
    np.testing.assert_array_equal(carried, expected)


def test_without_the_legalization_iree_rejects_the_program():
    with pytest.raises(CompileError, match="write affecting operations on global resources"):
        compile(ARGSORT.replace("PAYLOAD", PAYLOADS["dense"]), legalize=False)
