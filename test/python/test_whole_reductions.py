"""oxla-llvmcpu-split-whole-reductions: reductions of everything to one value run in rows first."""

import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile

_INIT = {"add": "0.0", "maximum": "0xFF800000", "minimum": "0x7F800000", "multiply": "1.0"}


def _whole(combiner: str, shape: tuple[int, ...], squared: bool = False) -> str:
    """@main(x) = x (or x * x) reduced over every dimension with stablehlo.`combiner`."""
    t = f"tensor<{'x'.join(map(str, shape))}xf32>"
    dims = ", ".join(map(str, range(len(shape))))
    value = "%sq" if squared else "%x"
    square = f"  %sq = stablehlo.multiply %x, %x : {t}\n" if squared else ""
    return (f"func.func @main(%x: {t}) -> tensor<f32> {{\n{square}"
            f"  %i = stablehlo.constant dense<{_INIT[combiner]}> : tensor<f32>\n"
            f"  %r = stablehlo.reduce({value} init: %i) applies stablehlo.{combiner} across dimensions = [{dims}]"
            f" : ({t}, tensor<f32>) -> tensor<f32>\n"
            "  return %r : tensor<f32>\n}\n")


def _reduces(module) -> list[str]:
    """The result types of the module's stablehlo.reduce ops, in order."""
    return [str(op.results[0].type) for op in ir.ops(module) if op.name == "stablehlo.reduce"]


def test_the_first_dimension_is_split_into_rows():
    module = ir.parse(_whole("add", (4096, 256)))
    transforms.run(module, "builtin.module(oxla-llvmcpu-split-whole-reductions)")
    assert _reduces(module) == ["tensor<64xf32>", "tensor<f32>"]
    reshape = next(op for op in ir.ops(module) if op.name == "stablehlo.reshape")
    assert str(reshape.results[0].type) == "tensor<64x64x256xf32>"


@pytest.mark.parametrize("shape, rows", [((520, 1024), 8), ((1024, 16, 64), 64), ((1023, 1024), None)])
def test_rows_divide_the_first_dimension(shape, rows):
    module = ir.parse(_whole("maximum", shape))
    transforms.run(module, "builtin.module(oxla-llvmcpu-split-whole-reductions)")
    assert _reduces(module) == ([f"tensor<{rows}xf32>", "tensor<f32>"] if rows else ["tensor<f32>"])


@pytest.mark.parametrize("device", ["local-sync", "local-task"])
@pytest.mark.parametrize("combiner, squared", [("add", False), ("add", True), ("maximum", False),
                                               ("minimum", True)])
def test_split_reductions_compute_the_reduction(combiner, squared, device):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2048, 512)).astype(np.float32)
    src = _whole(combiner, x.shape, squared)
    seen = []  # the reductions IREE's input phase receives: the pipeline split the one
    artifact = compile(src, hooks={"before:input": lambda module: seen.extend(_reduces(module))})
    assert seen == ["tensor<64xf32>", "tensor<f32>"]
    got = float(np.asarray(runtime.load(artifact, device=device).main(x)))
    values = x.astype(np.float64) ** 2 if squared else x.astype(np.float64)
    want = {"add": values.sum(), "maximum": values.max(), "minimum": values.min()}[combiner]
    assert got == pytest.approx(want, rel=1e-5, abs=1e-6)


def test_a_split_sum_of_many_terms_keeps_its_accuracy():
    """A million squares: summed in 64 rows, far closer to the exact sum than one f32 running sum."""
    x = np.random.default_rng(4).standard_normal((1024, 1024)).astype(np.float32)
    got = float(np.asarray(runtime.load(compile(_whole("add", x.shape, squared=True))).main(x)))
    exact = (x.astype(np.float64) ** 2).sum()
    running = np.float32(0)
    for row in (x * x):  # a running f32 sum, row sums added one after another
        running = np.float32(running + row.sum(dtype=np.float32))
    assert abs(got - exact) / exact < 1e-6
    assert abs(got - exact) <= abs(float(running) - exact) * 2 + 1e-6 * exact
