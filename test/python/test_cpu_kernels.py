"""oxla-llvmcpu-bf16-matmul-kernel: large bf16 matmuls run through oxla's AVX-512 BF16 dispatch, bit for bit
as IREE's microkernel computes them."""

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile
from oxla.transforms.cpu_kernels import MatmulShape, bf16_targets, matmul_shape


def _dot(m: int, k: int, n: int, *, transposed: bool = False, element: str = "bf16", result: str = "f32",
         extra: str = "") -> str:
    """@main(a, b) = a [m, k] times b ([k, n], or [n, k] when transposed)."""
    rhs = f"tensor<{n}x{k}x{element}>" if transposed else f"tensor<{k}x{n}x{element}>"
    return (f"func.func @main(%a: tensor<{m}x{k}x{element}>, %b: {rhs}) -> tensor<{m}x{n}x{result}> {{\n"
            f"  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [{1 if transposed else 0}]{extra} : "
            f"(tensor<{m}x{k}x{element}>, {rhs}) -> tensor<{m}x{n}x{result}>\n"
            f"  return %0 : tensor<{m}x{n}x{result}>\n}}\n")


def _target(features: str, triple: str = "x86_64-unknown-unknown-eabi-elf") -> str:
    return (f'#hal.executable.target<"llvm-cpu", "embedded-elf-{triple.split("-")[0]}", {{cpu_features = "{features}", '
            f'target_triple = "{triple}"}}>')


def _with_targets(text: str, *targets: str) -> ir.Module:
    devices = f'[#hal.device.target<"local", [{", ".join(targets)}]> : !hal.device]'
    return ir.parse(f"module attributes {{hal.device.targets = {devices}}} {{\n{text}}}")


def _the_dot(module):
    return next(op for op in ir.ops(module) if op.name == "stablehlo.dot_general")


@pytest.mark.parametrize("text, expected", [
    (_dot(256, 128, 512), MatmulShape(256, 512, 128, False)),
    (_dot(256, 128, 512, transposed=True), MatmulShape(256, 512, 128, True)),
    (_dot(8, 2, 32), None),  # below min_multiply_adds
    (_dot(256, 128, 512, element="f32"), None),
    (_dot(256, 128, 512, result="bf16"), None),
    (_dot(250, 128, 512), None),  # M not a multiple of 8 rows
    (_dot(256, 128, 500), None),  # N not a multiple of 32 columns
    (_dot(256, 127, 512), None),  # K not a whole number of pairs
    (_dot(256, 128, 512, extra=", algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, "
          "accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, "
          "num_primitive_operations = 1, allow_imprecise_accumulation = false>"), None),
])
def test_the_kernel_takes_aligned_bf16_matmuls_with_f32_results(text, expected):
    assert matmul_shape(_the_dot(ir.parse(text)), 1 << 23) == expected


def test_batched_and_column_major_left_operands_stay_with_iree():
    batched = ("func.func @main(%a: tensor<2x256x128xbf16>, %b: tensor<2x128x512xbf16>) -> tensor<2x256x512xf32> {\n"
               "  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
               "(tensor<2x256x128xbf16>, tensor<2x128x512xbf16>) -> tensor<2x256x512xf32>\n"
               "  return %0 : tensor<2x256x512xf32>\n}\n")
    column_major = ("func.func @main(%a: tensor<128x256xbf16>, %b: tensor<128x512xbf16>) -> tensor<256x512xf32> {\n"
                    "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : "
                    "(tensor<128x256xbf16>, tensor<128x512xbf16>) -> tensor<256x512xf32>\n"
                    "  return %0 : tensor<256x512xf32>\n}\n")
    for text in (batched, column_major):
        assert matmul_shape(_the_dot(ir.parse(text))) is None


@pytest.mark.parametrize("targets, expected", [
    ((_target("+avx512f,+avx512bf16"),), True),
    ((_target("+avx512f,-avx512bf16"),), False),
    ((_target("+avx512f,+avx512bf16"), _target("+avx512f")), False),  # every variant must have the instructions
    ((_target("+avx512bf16", "aarch64-unknown-unknown-eabi-elf"),), False),
    ((), False),
])
def test_the_kernel_needs_avx512_bf16_in_every_executable_target(targets, expected):
    module = _with_targets(_dot(256, 128, 512), *targets) if targets else ir.parse(_dot(256, 128, 512))
    assert bf16_targets(module) is expected
    transforms.run(module, "builtin.module(oxla-llvmcpu-bf16-matmul-kernel)")
    assert ("stream.executable" in ir.to_text(module)) is expected


@pytest.mark.parametrize("cpu, expected", [("znver4", True), ("znver5", True), ("x86-64-v4", False), ("generic", False)])
def test_the_default_pipeline_uses_the_kernel_for_chips_with_avx512_bf16(cpu, expected):
    module = compile(_dot(128, 256, 256), cpu=cpu, compile_to="input")  # 2^23 multiply-adds
    assert ("oxla_bf16_matmul_128x256x256" in ir.to_text(module)) is expected


def _host_has_avx512_bf16() -> bool:
    try:
        return " avx512_bf16" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


@pytest.mark.skipif(not _host_has_avx512_bf16(), reason="the host CPU has no AVX-512 BF16 instructions to run")
@pytest.mark.parametrize("m, k, n, transposed", [(128, 256, 256, False), (64, 512, 288, True), (256, 130, 512, False)])
@pytest.mark.parametrize("device", ["local-sync", "local-task"])
def test_the_kernel_computes_what_the_microkernel_does(m, k, n, transposed, device):
    src = _dot(m, k, n, transposed=transposed)
    assert "oxla_bf16_matmul" in ir.to_text(compile(src, compile_to="input"))
    rng = np.random.default_rng(11)
    a = rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((n, k) if transposed else (k, n)).astype(ml_dtypes.bfloat16)
    got = np.asarray(runtime.load(compile(src), device=device).main(a, b))
    iree = np.asarray(runtime.load(compile(src, optimize=False), device=device).main(a, b))  # IREE's microkernel
    np.testing.assert_array_equal(got, iree)
    reference = a.astype(np.float64) @ (b.T if transposed else b).astype(np.float64)
    np.testing.assert_allclose(got, reference, rtol=1e-4, atol=1e-3)
