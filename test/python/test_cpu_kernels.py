"""oxla-llvmcpu-matmul-kernel: large bf16 and f32 matmuls, and NHWC convolutions as implicit matmuls,
run through oxla's AVX-512 dispatch (f32 on AVX2: 6-row tiles for matmuls, 4-row ones for convolutions),
bit for bit as IREE computes them (its bf16 microkernel, its f32 generated code; bf16 convolutions within
rounding); bf16 matmuls through AMX tiles where the CPU has them."""

import dataclasses
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.runtime import drivers as runtime_drivers
from oxla.pipelines import compile
from oxla.dialects.stablehlo.attributes import dense_text
from oxla.transforms.cpu_kernels import (
    CHUNK_STEPS, CHUNKED, ConvShape, MatmulShape, _workgroup_block, conv_shape, kernel_executable, kernels_for,
    matmul_shape, packed_rhs, target_features)

AVX2 = "x86-64-v3"  # a chip with AVX2 and FMA but not AVX-512: 6x16 tiles for matmuls, 4x16 for convolutions
AVX2_KERNELS = kernels_for({"+avx2", "+fma", "+f16c"}, convolutions=True)
AVX2_MATMUL_KERNELS = kernels_for({"+avx2", "+fma", "+f16c"})


def _dot(m: int, k: int, n: int, *, transposed: bool = False, element: str = "bf16", result: str = "f32",
         extra: str = "", lead: tuple[int, ...] | None = None, weights: np.ndarray | None = None) -> str:
    """@main(a, b) = a [*lead (default m), k] times b ([k, n], or [n, k] when transposed); with `weights`,
    @main(a) and b is that constant."""
    rows = "x".join(map(str, lead or (m,)))
    lhs, out = f"tensor<{rows}x{k}x{element}>", f"tensor<{rows}x{n}x{result}>"
    rhs = f"tensor<{n}x{k}x{element}>" if transposed else f"tensor<{k}x{n}x{element}>"
    args, body = f"%a: {lhs}, %b: {rhs}", ""
    if weights is not None:
        args, body = f"%a: {lhs}", f"  %b = stablehlo.constant {dense_text(weights, element)}\n"
    return (f"func.func @main({args}) -> {out} {{\n{body}"
            f"  %0 = stablehlo.dot_general %a, %b, contracting_dims = [{len(lead or (m,))}] x [{1 if transposed else 0}]"
            f"{extra} : ({lhs}, {rhs}) -> {out}\n"
            f"  return %0 : {out}\n}}\n")


def _target(features: str, triple: str = "x86_64-unknown-unknown-eabi-elf") -> str:
    return (f'#hal.executable.target<"llvm-cpu", "embedded-elf-{triple.split("-")[0]}", {{cpu_features = "{features}", '
            f'target_triple = "{triple}"}}>')


def _with_targets(text: str, *targets: str) -> ir.Module:
    devices = f'[#hal.device.target<"local", [{", ".join(targets)}]> : !hal.device]'
    return ir.parse(f"module attributes {{hal.device.targets = {devices}}} {{\n{text}}}")


def _the_dot(module):
    return next(op for op in ir.ops(module) if op.name == "stablehlo.dot_general")


_F32_WEIGHTS = np.zeros((32, 512), np.float32)


@pytest.mark.parametrize("text, expected", [
    (_dot(256, 128, 512), MatmulShape("bf16", 256, 512, 128, "kn")),
    (_dot(256, 128, 512, transposed=True), MatmulShape("bf16", 256, 512, 128, "nk")),
    (_dot(512, 32, 512, element="f32"), MatmulShape("f32", 512, 512, 32, "kn")),
    (_dot(512, 33, 512, element="f32", transposed=True), MatmulShape("f32", 512, 512, 33, "nk")),  # K any
    (_dot(512, 32, 512, element="f32", lead=(2, 4, 64)), MatmulShape("f32", 512, 512, 32, "kn", (2, 4, 64))),
    # a constant B is packed while compiling, so few rows pay
    (_dot(8, 32, 512, element="f32", weights=_F32_WEIGHTS, extra=""), None),  # under 2^23 multiply-adds
    (_dot(512, 32, 512, element="f32", weights=_F32_WEIGHTS), MatmulShape("f32", 512, 512, 32, "packed")),
    (_dot(8, 1024, 1024, element="f32", weights=np.zeros((1024, 1024), np.float32)),
     MatmulShape("f32", 8, 1024, 1024, "packed")),
    (_dot(8, 2, 32), None),  # below min_multiply_adds
    (_dot(256, 128, 512, element="f32"), None),  # f32 under 512 rows: B's pack costs more than it saves
    (_dot(512, 32, 512, element="f16"), None),
    (_dot(256, 128, 512, result="bf16"), None),
    (_dot(250, 128, 512), None),  # M not a multiple of 8 rows
    (_dot(256, 128, 500), None),  # N not a multiple of 32 columns
    (_dot(256, 127, 512), None),  # K not a whole number of pairs
    (_dot(256, 128, 512, extra=", algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, "
          "accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, "
          "num_primitive_operations = 1, allow_imprecise_accumulation = false>"), None),
])
def test_the_kernel_takes_aligned_bf16_and_f32_matmuls_with_f32_results(text, expected):
    module = ir.parse(text)  # alive while its op is read
    assert matmul_shape(_the_dot(module), 1 << 23) == expected


@pytest.mark.parametrize("element, transposed", [("f32", False), ("f32", True), ("bf16", False), ("bf16", True)])
def test_constant_right_operands_are_packed_into_panels_of_lanes(element, transposed):
    rng = np.random.default_rng(2)
    k, n = 6, 64
    dtype = ml_dtypes.bfloat16 if element == "bf16" else np.float32
    b = rng.standard_normal((n, k) if transposed else (k, n)).astype(dtype)
    lanes = packed_rhs(b, MatmulShape(element, 8, n, k, "packed"), transposed)
    g = 2 if element == "bf16" else 1
    assert lanes.shape == (n // 32, k // g, 32) and lanes.dtype == (np.int32 if g == 2 else np.float32)
    values = lanes.view(b.dtype).reshape(n // 32, k // g, 32, g)  # lane (j, s, c) holds B's K values g*s..g*s+g-1
    kn = b.T if transposed else b
    for j, s, c, e in np.ndindex(values.shape):
        assert values[j, s, c, e] == kn[g * s + e, 32 * j + c]


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
        module = ir.parse(text)
        assert matmul_shape(_the_dot(module)) is None


@pytest.mark.parametrize("targets, features", [
    ((_target("+avx512f,+avx512bf16"),), {"+avx512f", "+avx512bf16"}),
    ((_target("+avx512f,-avx512bf16"),), {"+avx512f", "-avx512bf16"}),
    ((_target("+avx512f,+avx512bf16"), _target("+avx512f")), {"+avx512f"}),  # what every variant has
    ((_target("+avx512f,+avx512bf16", "aarch64-unknown-unknown-eabi-elf"),), set()),
    ((), set()),
])
def test_the_kernel_reads_the_features_every_executable_target_has(targets, features):
    text = _dot(256, 128, 512) + _dot(512, 32, 512, element="f32").replace("@main", "@f32")
    module = _with_targets(text, *targets) if targets else ir.parse(text)
    assert target_features(module) == features
    transforms.run(module, "builtin.module(oxla-llvmcpu-matmul-kernel)")
    printed = ir.to_text(module)
    assert ("oxla_bf16_matmul" in printed) is ("+avx512bf16" in features)
    assert ("oxla_f32_matmul" in printed) is ("+avx512f" in features)


@pytest.mark.parametrize("cpu, bf16, f32", [
    ("znver4", True, True), ("znver5", True, True), ("x86-64-v4", False, True), ("generic", False, False),
    (AVX2, False, True)])
def test_the_default_pipeline_uses_the_kernel_for_chips_with_the_instructions(cpu, bf16, f32):
    for element, expected in (("bf16", bf16), ("f32", f32)):
        module = compile(_dot(512, 64, 256, element=element), cpu=cpu, compile_to="input")  # 2^23 multiply-adds
        assert (f"oxla_{element}_matmul_512x256x64" in ir.to_text(module)) is expected


@pytest.mark.parametrize("cpu, expected", [("znver4", True), ("x86-64-v4", True), (AVX2, True), ("generic", False)])
def test_the_default_pipeline_uses_the_convolution_kernel_on_avx2_and_avx512(cpu, expected):
    module = compile(_conv((1, 28, 28, 128), (3, 3), 128), cpu=cpu, compile_to="input")
    assert ("oxla_f32_conv_1x30x30x128_3x3x128" in ir.to_text(module)) is expected


def _host_has(flag: str) -> bool:
    try:
        return f" {flag}" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


_needs_bf16 = pytest.mark.skipif(not _host_has("avx512_bf16"), reason="the host CPU has no AVX-512 BF16 to run")
_needs_avx512 = pytest.mark.skipif(not _host_has("avx512f"), reason="the host CPU has no AVX-512 to run")
_needs_avx2 = pytest.mark.skipif(not (_host_has("avx2") and _host_has("fma")), reason="the host CPU has no AVX2 to run")

_CASES = [  # element, m, k, n, transposed, lead, constant B, chip (None: the host)
    pytest.param("bf16", 128, 256, 256, False, None, False, None, marks=_needs_bf16),
    pytest.param("bf16", 64, 512, 288, True, None, False, None, marks=_needs_bf16),
    pytest.param("bf16", 256, 130, 512, False, None, False, None, marks=_needs_bf16),
    pytest.param("bf16", 64, 512, 256, True, None, True, None, marks=_needs_bf16),
    pytest.param("f32", 512, 64, 256, False, None, False, None, marks=_needs_avx512),
    pytest.param("f32", 520, 61, 288, True, None, False, None, marks=_needs_avx512),  # K odd: f32 takes any K
    pytest.param("f32", 64, 520, 256, False, (2, 32), True, None, marks=_needs_avx512),
    pytest.param("f32", 128, 256, 256, True, (1, 128), True, None, marks=_needs_avx512),
    # AVX2's 6-row tiles: workgroups of 64 rows end in a block of 4, of 8 rows in one of 2; 1028 rows
    # make workgroups of 4 rows, a block of 4 and no block of 6.
    pytest.param("f32", 576, 64, 256, False, None, False, AVX2, marks=_needs_avx2),
    pytest.param("f32", 520, 61, 288, True, None, False, AVX2, marks=_needs_avx2),
    pytest.param("f32", 1028, 32, 256, False, None, False, AVX2, marks=_needs_avx2),
    pytest.param("f32", 64, 520, 256, False, (2, 32), True, AVX2, marks=_needs_avx2),
    # B an argument up to 256 rows: read in chunks of 512 steps of K (784: a chunk of 512, one of 272;
    # 520: one of 8), workgroups of 64 rows ending in a block of 4, of 4 rows with no block of 6, of 256.
    pytest.param("f32", 64, 784, 1024, False, None, False, AVX2, marks=_needs_avx2),
    pytest.param("f32", 256, 1040, 768, False, None, False, AVX2, marks=_needs_avx2),
    pytest.param("f32", 64, 520, 256, False, (2, 32), False, AVX2, marks=_needs_avx2),
    pytest.param("f32", 20, 1600, 512, False, None, False, AVX2, marks=_needs_avx2),
]


@pytest.mark.parametrize("element, m, k, n, transposed, lead, constant, cpu", _CASES)
@pytest.mark.parametrize("device", ["local-sync", "local-task"])
def test_the_kernel_computes_what_iree_does(element, m, k, n, transposed, lead, constant, cpu, device):
    dtype = ml_dtypes.bfloat16 if element == "bf16" else np.float32
    rng = np.random.default_rng(11)
    a = rng.standard_normal((*(lead or (m,)), k)).astype(dtype)
    b = rng.standard_normal((n, k) if transposed else (k, n)).astype(dtype)
    src = _dot(m, k, n, transposed=transposed, element=element, lead=lead, weights=b if constant else None)
    lowered = ir.to_text(compile(src, cpu=cpu, compile_to="input"))
    assert f"oxla_{element}_matmul" in lowered
    args = (a,) if constant else (a, b)
    got = np.asarray(runtime.load(compile(src, cpu=cpu), device=device).main(*args))
    iree = np.asarray(runtime.load(compile(src, cpu=cpu, optimize=False), device=device).main(*args))  # IREE's
    if "tdpbf16ps" in lowered:  # AMX (a host that has it) sums K pairs apart from vdpbf16ps in the last bits
        np.testing.assert_allclose(got, iree, rtol=1e-5, atol=1e-4)
    else:
        np.testing.assert_array_equal(got, iree)
    reference = a.astype(np.float64) @ (b.T if transposed else b).astype(np.float64)
    np.testing.assert_allclose(got, reference, rtol=1e-4, atol=1e-3)


def _conv(x: tuple[int, int, int, int], window: tuple[int, int], features: int, *, element: str = "f32",
          pad=((1, 1), (1, 1)), weights: np.ndarray | None = None, stride: int = 1, dilation: int = 1,
          groups: int = 1) -> str:
    """@main(x) = x (NHWC) convolved with a constant HWIO kernel (zeros unless `weights`); with
    weights=False the kernel is a second argument instead."""
    (n, h, w, c), (kh, kw) = x, window
    oh = (h + sum(pad[0]) - (kh - 1) * dilation - 1) // stride + 1
    ow = (w + sum(pad[1]) - (kw - 1) * dilation - 1) // stride + 1
    lhs, out = f"tensor<{n}x{h}x{w}x{c}x{element}>", f"tensor<{n}x{oh}x{ow}x{features}xf32>"
    rhs = f"tensor<{kh}x{kw}x{c // groups}x{features}x{element}>"
    if weights is False:
        args, body = f"%x: {lhs}, %w: {rhs}", ""
    else:
        values = np.zeros((kh, kw, c // groups, features), np.float32) if weights is None else weights
        args, body = f"%x: {lhs}", f"  %w = stablehlo.constant {dense_text(values, element)}\n"
    window_text = f"stride = [{stride}, {stride}], pad = [[{pad[0][0]}, {pad[0][1]}], [{pad[1][0]}, {pad[1][1]}]], " \
                  f"rhs_dilate = [{dilation}, {dilation}]"
    return (f"func.func @main({args}) -> {out} {{\n{body}"
            f"  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
            f"window = {{{window_text}}}"
            f" {{batch_group_count = 1 : i64, feature_group_count = {groups} : i64}} : ({lhs}, {rhs}) -> {out}\n"
            f"  return %0 : {out}\n}}\n")


def _the_conv(module):
    return next(op for op in ir.ops(module) if op.name == "stablehlo.convolution")


@pytest.mark.parametrize("text, expected", [
    (_conv((1, 56, 56, 64), (3, 3), 64), ConvShape("f32", 1, 58, 58, 64, (3, 3), 64, (1, 1, 1, 1))),
    (_conv((2, 16, 16, 128), (1, 1), 128, pad=((0, 0), (0, 0))), ConvShape("f32", 2, 16, 16, 128, (1, 1), 128, (0, 0, 0, 0))),
    (_conv((1, 20, 16, 64), (5, 3), 32, pad=((0, 2), (1, 1))), ConvShape("f32", 1, 22, 18, 64, (5, 3), 32, (0, 2, 1, 1))),
    (_conv((1, 16, 32, 64), (3, 3), 64, element="bf16"), ConvShape("bf16", 1, 18, 34, 64, (3, 3), 64, (1, 1, 1, 1))),
    (_conv((1, 16, 32, 63), (3, 3), 64, element="bf16"), None),  # channels not a whole number of pairs
    # A kernel computed at run time is packed by the caller on every call: enough output pixels pay for it.
    (_conv((1, 56, 56, 64), (3, 3), 64, weights=False),
     ConvShape("f32", 1, 58, 58, 64, (3, 3), 64, (1, 1, 1, 1), packed=False)),
    (_conv((1, 16, 16, 128), (3, 3), 128, weights=False), None),  # 256 output pixels: under the 512 rows
    (_conv((1, 56, 56, 64), (3, 3), 48), None),  # features not a multiple of 32
    (_conv((1, 56, 54, 64), (3, 3), 64), ConvShape("f32", 1, 58, 56, 64, (3, 3), 64, (1, 1, 1, 1))),
    (_conv((1, 14, 14, 256), (3, 3), 256), None),  # 196 output pixels: not blocks of 8
    (_conv((1, 8, 8, 8), (3, 3), 32), None),  # under 2^23 multiply-adds
    (_conv((1, 56, 56, 64), (3, 3), 64, pad=((-1, 1), (1, 1))), None),
    (_conv((1, 112, 112, 64), (3, 3), 64, stride=2),
     ConvShape("f32", 1, 114, 114, 64, (3, 3), 64, (1, 1, 1, 1), (2, 2), (1, 1))),
    (_conv((1, 56, 56, 64), (3, 3), 64, pad=((2, 2), (2, 2)), dilation=2),
     ConvShape("f32", 1, 60, 60, 64, (3, 3), 64, (2, 2, 2, 2), (1, 1), (2, 2))),
    (_conv((1, 28, 28, 256), (3, 3), 256, stride=2), None),  # 14x14 output pixels
    (_conv((1, 56, 56, 64), (3, 3), 64, groups=2), None),
    (_conv((1, 56, 56, 64), (3, 3), 64).replace("[b, 0, 1, f]x", "[b, 1, 0, f]x"), None),  # W before H
])
def test_the_kernel_takes_nhwc_convolutions(text, expected):
    module = ir.parse(text)  # alive while its op is read
    assert conv_shape(_the_conv(module), 1 << 23) == expected


@pytest.mark.parametrize("text, expected", [
    (_conv((1, 28, 28, 128), (3, 3), 128), ConvShape("f32", 1, 30, 30, 128, (3, 3), 128, (1, 1, 1, 1))),
    # 196 output pixels: whole blocks of 4 rows
    (_conv((1, 14, 14, 256), (3, 3), 256), ConvShape("f32", 1, 16, 16, 256, (3, 3), 256, (1, 1, 1, 1))),
    (_conv((1, 56, 56, 64), (3, 3), 48, stride=2),
     ConvShape("f32", 1, 58, 58, 64, (3, 3), 48, (1, 1, 1, 1), (2, 2))),  # strided: from 64 channels; 16 columns
    (_conv((1, 56, 56, 64), (3, 3), 64), None),  # unstrided under 128 channels: IREE's code is as fast
    (_conv((1, 56, 56, 32), (3, 3), 64, stride=2), None),  # strided under 64 channels
    (_conv((1, 7, 7, 512), (3, 3), 512), ConvShape("f32", 1, 9, 9, 512, (3, 3), 512, (1, 1, 1, 1))),  # 49 pixels
    (_conv((1, 28, 28, 128), (3, 3), 120), None),  # features not a multiple of 16
    (_conv((1, 28, 28, 128), (3, 3), 128, element="bf16"), None),  # f32 only
    # a kernel computed at run time, packed on every call: from one block of 4 output pixels
    (_conv((1, 14, 14, 256), (3, 3), 256, weights=False),
     ConvShape("f32", 1, 16, 16, 256, (3, 3), 256, (1, 1, 1, 1), packed=False)),
    (_conv((1, 4, 4, 512), (3, 3), 512, pad=((0, 0), (0, 0)), weights=False),
     ConvShape("f32", 1, 4, 4, 512, (3, 3), 512, (0, 0, 0, 0), packed=False)),
    (_conv((1, 7, 7, 512), (7, 7), 512, pad=((0, 0), (0, 0)), weights=False), None),  # one pixel
])
def test_on_avx2_the_kernel_takes_the_convolutions_iree_runs_slowly(text, expected):
    module = ir.parse(text)  # alive while its op is read
    shape = conv_shape(_the_conv(module), 1 << 23, AVX2_KERNELS)
    assert shape == expected
    assert shape is None or (shape.kind.rows, shape.kind.columns) == (4, 16)
    assert shape is None or shape.block_rows == -(-shape.matmul.m // 4) * 4


@pytest.mark.parametrize("text, rows", [
    (_dot(512, 64, 512, element="f32", weights=np.zeros((64, 512), np.float32)), 6),
    (_dot(512, 64, 512, element="f32"), 6),
    (_dot(516, 64, 512, element="f32"), 6),  # workgroups of 4 rows: one block of a 4-row tile each
    (_dot(64, 1024, 1024, element="f32", weights=np.zeros((1024, 1024), np.float32)), 6),  # packed while compiling
    (_dot(384, 1024, 1024, element="f32"), None),  # under 512 rows: B's pack at every call costs what it saves
    (_dot(256, 1024, 1024, element="f32"), 6),  # up to 256 rows: B read in chunks, never packed
    (_dot(64, 1024, 1024, element="f32", transposed=True), None),  # B [N, K] would still be packed
    (_dot(514, 64, 512, element="f32"), None),  # no whole workgroups of 4 rows
    (_dot(512, 64, 520, element="f32"), None),  # N not a multiple of 16 columns
    (_dot(512, 64, 512), None),  # bf16: widened to f32 first (oxla-llvmcpu-widen-half-contractions)
])
def test_on_avx2_matmuls_take_the_six_row_tile(text, rows):
    module = ir.parse(text)  # alive while its op is read
    shape = matmul_shape(_the_dot(module), 1 << 23, AVX2_MATMUL_KERNELS)
    assert (shape and shape.kind.rows) == rows
    assert shape is None or (shape.kind.columns, shape.kind.row_tail) == (16, True)


def test_on_avx2_convolutions_keep_the_four_row_tile_and_fma_is_needed():
    assert AVX2_KERNELS["f32"].rows == 4 and not AVX2_KERNELS["f32"].matmuls
    assert AVX2_MATMUL_KERNELS["f32"].rows == 6 and not AVX2_MATMUL_KERNELS["f32"].convolutions
    assert kernels_for({"+avx2"}) == {} and kernels_for({"+avx2"}, convolutions=True) == {}


def test_avx2_row_blocks_end_in_one_smaller_tile():
    kind = AVX2_MATMUL_KERNELS["f32"]
    ragged, even = ir.parse(_dot(520, 64, 256, element="f32")), ir.parse(_dot(512, 64, 256, element="f32"))
    # workgroups of 8 rows: a block of 6, then one of 2
    executable = kernel_executable(matmul_shape(_the_dot(ragged), 1 << 23, {"f32": kind}))
    assert "scf.for %i = %i0 to %i1 step %rows" in executable and "scf.for %i = %i1 to %i2 step %c2" in executable
    assert executable.count("vector.fma") == 2 * 6 + 2 * 2
    # 4-row tiles divide workgroups of 64 rows: no smaller block
    executable = kernel_executable(matmul_shape(_the_dot(even), 1 << 23, {"f32": dataclasses.replace(kind, rows=4)}))
    assert "%i2" not in executable and executable.count("vector.fma") == 2 * 4


@pytest.mark.parametrize("m, rhs", [(4, CHUNKED), (68, CHUNKED), (256, CHUNKED), (260, None), (512, "kn")])
def test_on_avx2_few_rows_read_a_run_time_b_in_chunks(m, rhs):
    module = ir.parse(_dot(m, 2048, 2048, element="f32"))  # alive while its op is read
    shape = matmul_shape(_the_dot(module), 1 << 23, AVX2_MATMUL_KERNELS)
    assert (shape and shape.rhs) == rhs
    assert matmul_shape(_the_dot(module), 1 << 23) is None or m >= 512  # AVX-512: B packed, from 512 rows
    if rhs == CHUNKED:
        executable = kernel_executable(shape)
        # B [K, N] is bound as it is; each chunk of it is copied to a stack buffer the row blocks read
        assert shape.symbol.endswith("_chunks") and "memref<2048x2048xf32>" in executable
        assert f"memref.alloca() alignment = 64 : memref<{CHUNK_STEPS}x16xf32>" in executable
        assert executable.index("scf.for %kc") < executable.index("scf.for %j") < executable.index("scf.for %i")


def test_packed_panels_are_the_register_tiles_columns_wide():
    b = np.arange(6 * 32, dtype=np.float32).reshape(6, 32)
    narrow = packed_rhs(b, MatmulShape("f32", 8, 32, 6, "packed", kind=AVX2_KERNELS["f32"]), False)
    assert narrow.shape == (2, 6, 16)
    np.testing.assert_array_equal(narrow[1, 2], b[2, 16:])


_CONV_CASES = [  # element, input NHWC, window, features, padding, stride, dilation, chip (None: the host)
    pytest.param("f32", (1, 16, 32, 64), (3, 3), 64, ((1, 1), (1, 1)), 1, 1, None, marks=_needs_avx512),
    pytest.param("f32", (2, 16, 16, 128), (1, 1), 128, ((0, 0), (0, 0)), 1, 1, None, marks=_needs_avx512),
    pytest.param("f32", (1, 20, 16, 64), (5, 3), 32, ((0, 2), (1, 1)), 1, 1, None, marks=_needs_avx512),
    pytest.param("f32", (2, 10, 10, 64), (3, 3), 128, ((1, 1), (1, 1)), 1, 1, None, marks=_needs_avx512),  # blocks
    # of 8 pixels that span image rows and images
    pytest.param("f32", (1, 32, 32, 64), (3, 3), 64, ((1, 1), (1, 1)), 2, 1, None, marks=_needs_avx512),
    pytest.param("f32", (1, 32, 64, 128), (1, 1), 128, ((0, 0), (0, 0)), 2, 1, None, marks=_needs_avx512),
    pytest.param("f32", (1, 16, 32, 64), (3, 3), 64, ((2, 2), (2, 2)), 1, 2, None, marks=_needs_avx512),
    pytest.param("bf16", (2, 16, 32, 64), (3, 3), 64, ((1, 1), (1, 1)), 1, 1, None, marks=_needs_bf16),
    pytest.param("bf16", (1, 32, 32, 64), (3, 3), 64, ((1, 0), (1, 0)), 2, 1, None, marks=_needs_bf16),
    pytest.param("f32", (1, 14, 14, 128), (3, 3), 128, ((1, 1), (1, 1)), 1, 1, AVX2, marks=_needs_avx2),
    pytest.param("f32", (2, 5, 6, 128), (3, 3), 128, ((1, 1), (1, 1)), 1, 1, AVX2, marks=_needs_avx2),  # blocks
    # of 4 pixels that span image rows and images
    pytest.param("f32", (1, 32, 32, 64), (3, 3), 64, ((1, 0), (1, 0)), 2, 1, AVX2, marks=_needs_avx2),
    pytest.param("f32", (1, 16, 16, 128), (3, 3), 48, ((2, 2), (2, 2)), 1, 2, AVX2, marks=_needs_avx2),
    # 49 and 98 output pixels: whole blocks of 4 past the last, which the caller drops
    pytest.param("f32", (1, 7, 7, 256), (3, 3), 128, ((1, 1), (1, 1)), 1, 1, AVX2, marks=_needs_avx2),
    pytest.param("f32", (2, 7, 7, 128), (3, 3), 128, ((1, 1), (1, 1)), 1, 1, AVX2, marks=_needs_avx2),
]


@pytest.mark.parametrize("element, x_shape, window, features, pad, stride, dilation, cpu", _CONV_CASES)
@pytest.mark.parametrize("device", ["local-sync", "local-task"])
def test_the_convolution_kernel_computes_what_iree_does(element, x_shape, window, features, pad, stride, dilation,
                                                        cpu, device):
    dtype = ml_dtypes.bfloat16 if element == "bf16" else np.float32
    rng = np.random.default_rng(13)
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal((*window, x_shape[3], features)).astype(dtype)
    src = _conv(x_shape, window, features, element=element, pad=pad, weights=w, stride=stride, dilation=dilation)
    assert f"oxla_{element}_conv" in ir.to_text(compile(src, cpu=cpu, compile_to="input"))
    got = np.asarray(runtime.load(compile(src, cpu=cpu), device=device).main(x))
    iree = np.asarray(runtime.load(compile(src, cpu=cpu, optimize=False), device=device).main(x))  # IREE's own
    if element == "f32":  # one FMA per tap and channel, in IREE's order
        np.testing.assert_array_equal(got, iree)
    else:  # IREE's bf16 convolution does not sum in vdpbf16ps's pairs
        np.testing.assert_allclose(got, iree, rtol=1e-5, atol=1e-4)
    padded = np.pad(x.astype(np.float64), ((0, 0), *pad, (0, 0)))
    oh, ow = got.shape[1:3]
    taps = [(i * dilation, j * dilation) for i in range(window[0]) for j in range(window[1])]
    reference = sum(np.einsum("nhwc,cf->nhwf", padded[:, a:a + (oh - 1) * stride + 1:stride,
                                                      b:b + (ow - 1) * stride + 1:stride],
                              w[a // dilation, b // dilation].astype(np.float64)) for a, b in taps)
    np.testing.assert_allclose(got, reference, rtol=1e-4, atol=1e-3)


_ALGORITHM = (", algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, "
              "lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, "
              "allow_imprecise_accumulation = false>")


@pytest.mark.parametrize("features, bf16_widened", [
    ("+avx2,+fma,-avx512f,-avx512bf16", True),  # AVX2
    ("+avx512f,-avx512bf16", True),  # AVX-512 without BF16: the f32 kernel then takes it
    ("+avx512f,+avx512bf16", False),
])
def test_half_matmuls_sum_in_f32_and_take_f32_operands_where_the_cpu_lacks_instructions(features, bf16_widened):
    dots = {"bf16": _dot(64, 32, 16), "bf16_result": _dot(64, 32, 16, result="bf16"),
            "f16": _dot(64, 32, 16, element="f16"), "f16_result": _dot(64, 32, 16, element="f16", result="f16"),
            "algorithm": _dot(64, 32, 16, extra=_ALGORITHM), "mixed": _dot(64, 32, 16, result="f64"),
            "f32": _dot(64, 32, 16, element="f32")}
    module = _with_targets("".join(text.replace("@main", f"@{name}") for name, text in dots.items()),
                           _target(features))
    transforms.run(module, "builtin.module(oxla-llvmcpu-widen-half-contractions)")
    assert not ir.verify(module)
    found = {op.parent.attributes["sym_name"].value: ([str(v.type) for v in op.operands], str(op.results[0].type))
             for op in ir.ops(module) if op.name == "stablehlo.dot_general"}
    wide = (["tensor<64x32xf32>", "tensor<32x16xf32>"], "tensor<64x16xf32>")
    bf16 = ["tensor<64x32xbf16>", "tensor<32x16xbf16>"]
    assert found["bf16"] == (wide if bf16_widened else (bf16, "tensor<64x16xf32>"))
    assert found["bf16_result"] == (wide if bf16_widened else (bf16, "tensor<64x16xf32>"))  # f32 sums either way
    assert found["f16"] == found["f16_result"] == wide  # no x86-64 CPU multiplies f16 into f32 sums
    assert found["algorithm"][0] == bf16  # the algorithm says how
    assert found["mixed"] == (bf16, "tensor<64x16xf64>")
    rounded = [op.parent.attributes["sym_name"].value for op in ir.ops(module) if op.name == "stablehlo.convert"
               and str(op.operands[0].type) == "tensor<64x16xf32>"]  # f32 sums to a half result
    assert sorted(rounded) == ["bf16_result", "f16_result"]
    barriers = [op for op in ir.ops(module) if op.name == "stablehlo.optimization_barrier"]
    assert len(barriers) == (4 if bf16_widened else 2)


def test_half_results_sum_in_f32_on_other_cpus_too():
    module = _with_targets(_dot(64, 32, 16) + _dot(64, 32, 16, result="bf16").replace("@main", "@bf16_result"),
                           _target("+neon", "aarch64-unknown-unknown-eabi-elf"))
    transforms.run(module, "builtin.module(oxla-llvmcpu-widen-half-contractions)")
    found = {op.parent.attributes["sym_name"].value: ([str(v.type) for v in op.operands], str(op.results[0].type))
             for op in ir.ops(module) if op.name == "stablehlo.dot_general"}
    bf16 = ["tensor<64x32xbf16>", "tensor<32x16xbf16>"]
    assert found == {"main": (bf16, "tensor<64x16xf32>"), "bf16_result": (bf16, "tensor<64x16xf32>")}


def test_half_convolutions_sum_in_f32():
    """IREE summed a bf16 convolution with a bf16 result in bf16 (3% off XLA); f16 likewise."""
    rng = np.random.default_rng(13)
    x = rng.standard_normal((1, 12, 12, 64)).astype(np.float32)
    w = rng.standard_normal((3, 3, 64, 16)).astype(np.float32)
    padded = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    for element, kind in (("bf16", ml_dtypes.bfloat16), ("f16", np.float16)):
        xs, ws = x.astype(kind), w.astype(kind)
        exact = sum(np.einsum("nhwc,cf->nhwf", padded.astype(kind).astype(np.float64)[:, a:a + 12, b:b + 12],
                              ws[a, b].astype(np.float64)) for a in range(3) for b in range(3))
        src = ("func.func @main(%x: tensor<1x12x12x64xE>, %w: tensor<3x3x64x16xE>) -> tensor<1x12x12x16xE> {\n"
               "  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
               "window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, "
               "feature_group_count = 1 : i64} : (tensor<1x12x12x64xE>, tensor<3x3x64x16xE>) -> tensor<1x12x12x16xE>\n"
               "  return %0 : tensor<1x12x12x16xE>\n}\n").replace("xE>", f"x{element}>")
        got = np.asarray(runtime.load(compile(src)).main(xs, ws)).astype(np.float64)
        nearest = exact.astype(np.float32).astype(kind).astype(np.float64)  # f32 sums rounded once
        assert np.mean(got == nearest) > 0.98
        np.testing.assert_allclose(got, exact, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("element, result", [("bf16", "bf16"), ("f16", "f32"), ("f16", "f16")])
def test_widened_half_matmuls_keep_xla_results(element, result):
    """Against XLA's f32 sums rounded to the result type: the same products and the same rounding."""
    src = _dot(128, 256, 64, element=element, result=result)
    assert "linalg.matmul ins(%4, %5 : tensor<128x256xf32>, tensor<256x64xf32>)" in ir.to_text(
        compile(src, cpu="x86-64-v3", compile_to="input"))
    rng = np.random.default_rng(12)
    kind = ml_dtypes.bfloat16 if element == "bf16" else np.float16
    a = rng.standard_normal((128, 256)).astype(kind)
    b = rng.standard_normal((256, 64)).astype(kind)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    got = np.asarray(runtime.load(compile(src)).main(a, b))
    assert got.dtype == (np.float32 if result == "f32" else kind)
    # f32 sums of 256 exact products, then (for a half result) one rounding to it
    np.testing.assert_allclose(got.astype(np.float64), exact, rtol=1e-2 if result != "f32" else 1e-5, atol=1e-3)
    if result != "f32":
        nearest = exact.astype(np.float32).astype(kind).astype(np.float64)
        assert np.mean(got.astype(np.float64) == nearest) > 0.99


def test_widened_bf16_matmuls_compute_the_same_products_and_skip_the_microkernel():
    src = _dot(128, 256, 64)
    avx2 = compile(src, cpu="x86-64-v3")
    assert "--iree-llvmcpu-enable-ukernels=none" in avx2.flags  # now an f32 contraction
    assert "--iree-llvmcpu-enable-ukernels=none" not in compile(src, cpu="znver5").flags  # bf16 instructions
    rng = np.random.default_rng(11)
    a = rng.standard_normal((128, 256)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((256, 64)).astype(ml_dtypes.bfloat16)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    for artifact in (compile(src), compile(src, optimize=False)):  # oxla's choice for the host, and IREE's
        got = np.asarray(runtime.load(artifact).main(a, b))
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-4)


def _row_times(rows: int, k: int, n: int, constant: bool = False) -> str:
    """@main(x[rows, k], w[n, k]) = x @ w^T (the transpose folded into the dot); w a constant with `constant`."""
    args = "%x: tensor<RxKxf32>" + ("" if constant else ", %w: tensor<NxKxf32>")
    body = "  %w = stablehlo.constant dense<0.5> : tensor<NxKxf32>\n" if constant else ""
    return (f"func.func @main({args}) -> tensor<RxNxf32> {{\n{body}"
            "  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [1] : (tensor<RxKxf32>, tensor<NxKxf32>)"
            " -> tensor<RxNxf32>\n  return %0 : tensor<RxNxf32>\n}\n").replace("R", str(rows)).replace(
                "K", str(k)).replace("N", str(n))


def test_one_row_times_a_transposed_run_time_matrix_is_the_matrix_times_the_row():
    module = ir.parse(_row_times(1, 96, 40))
    transforms.run(module, "builtin.module(oxla-llvmcpu-row-major-gemvs)")
    assert not ir.verify(module)
    (dot,) = [op for op in ir.ops(module) if op.name == "stablehlo.dot_general"]
    assert [str(v.type) for v in dot.operands] == ["tensor<40x96xf32>", "tensor<96xf32>"]
    for text in (_row_times(2, 96, 40), _row_times(1, 96, 40, constant=True)):  # two rows; a constant matrix
        module = ir.parse(text)
        transforms.run(module, "builtin.module(oxla-llvmcpu-row-major-gemvs)")
        assert "contracting_dims = [1] x [1]" in ir.to_text(module)
    flow = ir.to_text(compile(_row_times(1, 512, 256), compile_to="flow"))
    assert "set_encoding" not in flow  # without the rewrite IREE transposes W and data-tiles the product
    rng = np.random.default_rng(14)
    x, w = rng.standard_normal((1, 512)).astype(np.float32), rng.standard_normal((256, 512)).astype(np.float32)
    got = np.asarray(runtime.load(compile(_row_times(1, 512, 256))).main(x, w))
    np.testing.assert_allclose(got, x.astype(np.float64) @ w.astype(np.float64).T, rtol=1e-5, atol=1e-4)


_AMX_FEATURES = {"+avx512f", "+avx512bf16", "+amx-bf16", "+amx-tile"}
_needs_amx = pytest.mark.skipif(not (_host_has("amx_bf16") and runtime_drivers.request_tile_state()),
                                reason="the host CPU has no AMX, or Linux does not grant its tile state")


def test_amx_cpus_take_bf16_matmuls_to_the_tile_kernel_and_convolutions_to_the_vector_one():
    assert kernels_for(_AMX_FEATURES)["bf16"].tiles
    assert not kernels_for(_AMX_FEATURES, convolutions=True)["bf16"].tiles
    assert not kernels_for(_AMX_FEATURES, tiles=False)["bf16"].tiles
    assert kernels_for(_AMX_FEATURES)["f32"] == kernels_for({"+avx512f"})["f32"]


@pytest.mark.parametrize("k, tiles", [(256, True), (130, False)])  # K in steps of 32, else vdpbf16ps
def test_a_sapphire_rapids_target_compiles_the_amx_kernel(k, tiles):
    src = _dot(256, k, 256)
    lowered = ir.to_text(compile(src, cpu="sapphirerapids", compile_to="input"))
    assert "oxla_bf16_matmul_256x256x" in lowered
    assert ("llvm.x86.tdpbf16ps.internal" in lowered) is tiles
    assert compile(src, cpu="sapphirerapids").vmfb  # LLVM takes the tile code (it configures the tiles)


@_needs_amx
@pytest.mark.parametrize("m, k, n, transposed", [(256, 512, 288, False), (64, 1024, 256, True)])
def test_the_amx_kernel_sums_bf16_products_in_f32(m, k, n, transposed):
    rng = np.random.default_rng(13)
    a = rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((n, k) if transposed else (k, n)).astype(ml_dtypes.bfloat16)
    src = _dot(m, k, n, transposed=transposed)
    assert "tdpbf16ps" in ir.to_text(compile(src, compile_to="input"))
    got = np.asarray(runtime.load(compile(src)).main(a, b))
    reference = a.astype(np.float64) @ (b.T if transposed else b).astype(np.float64)
    np.testing.assert_allclose(got, reference, rtol=1e-5, atol=1e-4)  # f32 sums of exact products


@pytest.mark.parametrize("x_shape, window, features, stride, cpu", [
    pytest.param((1, 28, 28, 64), (3, 3), 64, 1, None, marks=_needs_avx512),
    pytest.param((2, 1, 1024, 64), (1, 5), 64, 2, None, marks=_needs_avx512),
    pytest.param((1, 7, 7, 256), (3, 3), 128, 1, AVX2, marks=_needs_avx2),  # 49 pixels, in 13 blocks of 4
    pytest.param((1, 17, 17, 128), (7, 1), 64, 1, AVX2, marks=_needs_avx2),
])
def test_convolutions_with_a_run_time_kernel_pack_it_per_call_and_compute_what_iree_does(x_shape, window, features,
                                                                                        stride, cpu):
    rng = np.random.default_rng(17)
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal((*window, x_shape[3], features)).astype(np.float32)
    pad = tuple((k // 2, k // 2) for k in window)
    src = _conv(x_shape, window, features, pad=pad, weights=False, stride=stride)
    lowered = ir.to_text(compile(src, cpu=cpu, compile_to="input"))
    assert "oxla_f32_conv" in lowered
    got = np.asarray(runtime.load(compile(src, cpu=cpu)).main(x, w))
    iree = np.asarray(runtime.load(compile(src, cpu=cpu, optimize=False)).main(x, w))  # IREE's own code
    np.testing.assert_array_equal(got, iree)  # one FMA per tap and channel, in IREE's order


def _looped_dot(m: int, k: int, trips: int, *, changing_b: bool = False) -> str:
    """@main(h, w): `trips` times h = tanh(h @ w), w [k, k] carried through the loop unchanged (or doubled
    every trip, with `changing_b`), as JAX exports a fori_loop."""
    h, w = f"tensor<{m}x{k}xf32>", f"tensor<{k}x{k}xf32>"
    next_w = "%w2" if changing_b else "%wi"
    return f"""
func.func @main(%h0: {h}, %w: {w}) -> {h} {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %wi = %w, %h = %h0) : tensor<i32>, {w}, {h}
    cond {{
      %n = stablehlo.constant dense<{trips}> : tensor<i32>
      %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    }} do {{
      %one = stablehlo.constant dense<1> : tensor<i32>
      %next = stablehlo.add %i, %one : tensor<i32>
      %h2 = func.call @step(%wi, %h) : ({w}, {h}) -> {h}
      %w2 = stablehlo.add %wi, %wi : {w}
      stablehlo.return %next, {next_w}, %h2 : tensor<i32>, {w}, {h}
    }}
  return %r#2 : {h}
}}
func.func private @step(%w: {w}, %h: {h}) -> {h} {{
  %y = stablehlo.dot_general %h, %w, contracting_dims = [1] x [0] : ({h}, {w}) -> {h}
  %t = stablehlo.tanh %y : {h}
  return %t : {h}
}}
"""


def test_on_avx2_small_matmuls_a_loop_runs_with_the_same_b_take_the_kernel():
    kind = AVX2_MATMUL_KERNELS["f32"]
    module = ir.parse(_dot(4, 128, 128, element="f32"))
    assert matmul_shape(_the_dot(module), 1 << 23, {"f32": kind}) is None  # once: left to IREE
    assert matmul_shape(_the_dot(module), 1 << 23, {"f32": kind}, looped=True) == MatmulShape("f32", 4, 128, 128, "kn")
    assert matmul_shape(_the_dot(module), 1 << 23, looped=True) is None  # AVX-512: not measured, as elsewhere
    for changing_b, taken in ((False, True), (True, False)):
        looped = _with_targets(_looped_dot(4, 128, 16, changing_b=changing_b), _target("+avx2,+fma"))
        transforms.run(looped, "builtin.module(oxla-llvmcpu-matmul-kernel)")
        assert ("oxla_f32_matmul_4x128x128" in ir.to_text(looped)) is taken


@_needs_avx2
@pytest.mark.parametrize("device", ["local-sync", "local-task"])
def test_a_looped_small_matmul_through_the_kernel_computes_what_iree_does(device):
    src = _looped_dot(8, 128, 16)
    assert "oxla_f32_matmul_8x128x128" in ir.to_text(compile(src, cpu=AVX2, compile_to="input"))
    rng = np.random.default_rng(5)
    h, w = rng.standard_normal((8, 128)).astype(np.float32), (rng.standard_normal((128, 128)) * 0.1).astype(np.float32)
    got = np.asarray(runtime.load(compile(src, cpu=AVX2), device=device).main(h, w))
    iree = compile(src, cpu=AVX2, disable_passes=["oxla-llvmcpu-matmul-kernel"])
    np.testing.assert_array_equal(got, np.asarray(runtime.load(iree, device=device).main(h, w)))
    reference = h.astype(np.float64)
    for _ in range(16):
        reference = np.tanh(reference @ w)
    np.testing.assert_allclose(got, reference, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("m, n, columns, block", [
    (64, 1024, 16, (64, 512)),  # two workgroups already
    (16, 512, 16, (16, 256)),  # one block of 512 columns would leave a thread idle
    (4, 128, 16, (4, 64)),
    (4, 16, 16, (4, 16)),  # one panel: one workgroup
    (8, 32, 32, (8, 32)),  # AVX-512: no narrower than its 32-column panels
])
def test_workgroups_split_a_small_result_between_threads(m, n, columns, block):
    assert _workgroup_block(m, n, columns) == block


@pytest.mark.parametrize("m, n, block", [
    (256, 768, (256, 128)),  # three blocks of 256 columns would keep one of two threads idle a third of the time
    (256, 1024, (256, 512)),
    (64, 48, (64, 16)),  # three panels: three workgroups, no even split
])
def test_chunked_kernels_take_whole_rows_and_an_even_number_of_workgroups(m, n, block):
    from oxla.transforms.cpu_kernels import CHUNKED_WORKGROUP_ROWS
    assert _workgroup_block(m, n, 16, CHUNKED_WORKGROUP_ROWS, balanced=True) == block
