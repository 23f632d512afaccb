"""oxla-llvmcpu-matmul-kernel: large matmuls and convolutions through oxla's own AVX-512 (and AVX2) dispatch.

IREE 3.13 runs a data-tiled bf16 matmul through its mmt4d microkernel,
which accumulates one 16x16 tile per step of two K: one vector of the
right operand and sixteen broadcasts of the left, 17 loads for 16
`vdpbf16ps`. That bounds it below the core's peak: the bf16 GEMM 1024^3
spent 4.6 ms of a 4.8 ms call in it (XLA: 4.3 ms). An f32 matmul gets
IREE's generated code, as fast as the microkernel with
oxla-llvmcpu-mmt4d-register-tiles, but between packs of both operands and
an unpack of the result.

This pass, run on StableHLO before IREE's input phase, replaces each large
matrix product of bf16 or f32 operands with an f32 result by a dispatch
oxla writes itself (an IREE `stream.executable` in vector, scf and LLVM
ops), one row of KERNELS per element type and kind of CPU:
- on AVX-512 it steps 8 rows of 32 columns: 16 accumulators, 10 loads per 16
  `vdpbf16ps` (bf16, over K pairs) or FMAs (f32);
- it reads the left operand in place, broadcasting each row's K pair or
  value, and writes the result rows in place (no pack, no unpack);
- the right operand is packed once per call into panels two vectors wide by a
  StableHLO reshape and transpose, or, when it is a constant (a model's
  weights), by the pass itself while compiling; on AVX2, a [K, N] one
  computed at run time is read by the kernel itself when there are at most
  256 rows, each chunk of K copied to the stack, panel by panel, for the
  workgroup's row blocks (_chunked_executable).
The products and their order are IREE's (the microkernel's instruction
over the same K pairs; one FMA per K in order), so the results are bit
for bit the same. The bf16 GEMM takes 4.2 ms instead of 4.6, the f32 one
8.2 ms instead of 8.6, the MLP and BERT 8% and 5% less
(docs/performance.md).

On CPUs with AMX (`+amx-bf16`, `+amx-tile`: Sapphire Rapids and later
Xeons) bf16 matmuls use its tiles instead (tile_kernel_executable): each
block of 32 rows and a panel's 32 columns sums four 16x16 f32 tiles, each
step of 32 K loading two tiles of A straight from its rows and two of the
packed B (the same panels: a panel's 16 columns of K pairs are a tile's
rows) for four `tdpbf16ps`. The bf16 GEMM 1024^3 on a 2-vCPU AVX-512 Xeon
with AMX: 18.6 ms with the vdpbf16ps kernel, 2.2-2.4 ms with the tiles
(XLA, which uses them too, 2.4-2.8 ms). Its sums are f32 sums of the bf16 pairs'
products like vdpbf16ps's, but differ from them in the last bits. Shapes
whose M or K is no multiple of 32 go to the vdpbf16ps kernel. Linux grants
the tile state only to a process that asks (oxla.runtime does).

The pass applies to the element types whose instructions every executable
target of the module's `hal.device.targets` has (x86-64 with `+avx512bf16`,
`+avx512f`, or `+avx2` and `+fma` for f32), to dot_general (or dot) ops
with a row-major left operand [..., K] (M rows: the product of the other
dimensions), a right operand [K, N] or [N, K], no batch dimensions, an f32
result, M a multiple of 8 (AVX2: of 4; f32 with a right operand packed per
call: at least 512, on AVX2 or at most 256 with B [K, N] read in chunks), N
of 32 (AVX2: 16), K of 2 (bf16), and at least `min-multiply-adds`
multiply-adds.

A convolution of an NHWC input with an HWIO kernel and an f32 NHWC
result (any stride and window dilation, no input dilation, one feature
group, padding not negative) is the same kernel as an implicit matmul: a
row per output pixel, K over the window's taps and the input channels.
The input is padded by StableHLO, each block of 8 output pixels (across
image rows and images) reads its rows' lanes straight from it tap by tap
(nothing unfolded into memory), and the kernel is packed while compiling
like a constant right operand, or, computed at run time, by the caller
on every call like a [K, N] one (then at least as many output pixels as
the kernel's `min_rows`: a JAX model's parameters, a widened 1-D
convolution, 5 taps over f32[8,1024,128]: 15.8 ms unfolded through
IREE's matmul, 7.7 ms here, XLA 8.0-8.3). It needs a multiple of 8
output pixels, of 32 features, whole channel pairs (bf16) and
`min-multiply-adds`. The ResNet block's 3x3 convolutions take 0.86
ms each instead of IREE's 1.00-1.05, the stage transition's 3x3 ones
(stride 2, and 28x28x128) 0.44 and 0.88 ms (f32 results bit for bit
IREE's). Anything else is left to IREE.

On AVX2 (16 registers) f32 matmuls step 6 rows of 16 columns: 12
accumulators, 8 loads per 12 FMAs (IREE's data-tiled code steps 4 rows of
two 8x8 tiles: 8 accumulators, the fewest that keep both FMA units of a
Zen 3 busy over their 4-cycle latency). A workgroup's rows past its last
whole block of 6 (64 = 10 x 6 + 4) run as one block of a smaller tile.
On one thread of an AVX2 Zen 3 the f32 GEMM 1024^3 takes 5% less time
than with IREE's code, the MLP 11%, the transformer block 7%, BERT 5%
(docs/performance.md).
Convolutions step 4 rows of 16 columns (8 accumulators, 6 loads per 8
FMAs), and only those with at least 128 input channels or, strided, 64:
IREE's own code runs those at 3-64 GFLOP/s there (the 14x14x256 3x3
convolution in 74.5 ms, the kernel in 3.7 ms), and as fast as this tile
for fewer channels. They need a multiple of 16 features; output pixels
that are no whole blocks of 4 (7x7) are rounded up to blocks, whose rows
past the last pixel read it again and are dropped by the caller (the
7x7x512 convolution: IREE 126.8 ms, the kernel 4.9 ms). A kernel computed
at run time is packed on every call from 4 output pixels up: IREE's code
for it is as slow (the 14x14x256 one 60.6 ms, the kernel 2.9 ms).
On AVX2, a loop body's f32 matmul whose right operand is the same every
trip (loop_analysis: JAX carries a model's weights through a `fori_loop`
unchanged) takes the kernel at any size: B's pack runs once, before the
loop, where IREE encoded A and ran a mostly padded tile every trip (256
decoding steps with three 4x128x128 matmuls each: 12.7 -> 10.9 ms). A
small result's columns are split into MIN_WORKGROUPS workgroups where N
allows, so that a second thread has work.

oxla-llvmcpu-widen-half-contractions, run before it: on x86-64 CPUs
without `+avx512bf16`, a dot or convolution of two bf16 operands into f32
or bf16 takes them converted to f32 (exact), so that it runs as an f32
one (the f32 kernel on AVX-512, IREE's f32 code on AVX2) instead of IREE's
bf16 code, which has no fast path there; f16 operands the same on every
x86-64 CPU. Half results are f32 sums rounded once, as XLA's are.

oxla-llvmcpu-row-major-gemvs: x @ W^T for one row x and a W computed at run
time (PyTorch's Linear layout) becomes W @ x, a matvec, where IREE would
transpose W on every call.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass

import numpy as np

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.dialects.elements import constant_value
from oxla.dialects.stablehlo import ConvolutionOp, DotGeneralOp
from oxla.dialects.stablehlo.attributes import dense_elements
from oxla.transforms.cpu_tiles import target_text
from oxla.transforms.loop_analysis import LoopAnalysis
from oxla.transforms.registry import Pass, RewritePass, register_pass
from oxla.transforms.simplify.rule import defining

# A right operand [K, N] the kernel reads itself, a chunk of K at a time (MatmulShape.rhs), and how many
# steps of K a chunk holds: 512 x 16 f32, 32 KiB of stack, a Zen 3's L1 data cache.
CHUNKED = "kn_chunks"
CHUNK_STEPS = 512
# Such a kernel's workgroups take all the rows they can: each copies its columns of B again.
CHUNKED_WORKGROUP_ROWS = (256, 128, 64, 32, 16, 8, 4)

# Workgroup tiles, largest first: a workgroup walks its panels of the packed right operand (two vectors
# wide) and, for each, its blocks of rows of the left; at K = 1024 a 32-column panel (64 KiB bf16) and
# the 64 rows stay in L2. The last choices are the smallest register tile's (AVX2: 4 rows, 16 columns).
WORKGROUP_ROWS = (64, 32, 16, 8, 4)
WORKGROUP_COLUMNS = (512, 256, 128, 64, 32, 16)
MIN_WORKGROUPS = 2
_LANE_DTYPES = {"i32": np.dtype(np.int32), "f32": np.dtype(np.float32)}
_ACC16, _ACC8 = "vector<16xf32>", "vector<8xf32>"


def _fma_step(vector: str) -> str:
    """The f32 kernels' multiply-add step on `vector`s: one FMA per K, in K order."""
    return f"vector.fma {{a}}, {{b}}, {{acc}} : {vector}"


@dataclass(frozen=True)
class KernelType:
    """How the kernel multiplies one operand element type on one kind of CPU: a row of KERNELS."""

    element: str  # the operands' element type (the result is f32)
    features: tuple[str, ...]  # the CPU features its instructions need, as in an executable target's cpu_features
    group: int  # K values per 32-bit lane the kernel loads: bf16 pairs, single f32
    lane: str  # the 32-bit type the kernel loads and broadcasts
    operand: str  # the vector type its step multiplies
    step: str  # one multiply-add step: {acc} += {a} (broadcast row values) * {b} (a vector of B)
    min_rows: int  # fewest rows M it takes: below, packing B each call costs more than the kernel saves
    # Fewest rows of a matmul a loop body runs with the same B every trip (B's pack then runs once per
    # call, and matmuls of any size take the kernel); None: such matmuls are taken as any other.
    looped_rows: int | None = None
    rows: int = 8  # the register tile: `rows` rows of two vectors of `lanes` f32 sums
    lanes: int = 16
    matmuls: bool = True  # whether it takes matmuls too, or only convolutions
    conv_channels: tuple[int, int] = (0, 0)  # fewest input channels of a convolution it takes (unstrided, strided)
    ragged_conv_rows: bool = False  # whether it takes convolutions whose output pixels are no whole blocks
    row_tail: bool = False  # whether a workgroup's rows past its whole register tiles run as one smaller tile
    # Most rows M (fewer than min_rows) of a matmul whose B [K, N] is computed at run time that the kernel
    # takes reading B itself, chunk by chunk (_chunked_executable): B is then read once, packed nowhere.
    chunked_rows: int = 0
    convolutions: bool = True  # whether it takes convolutions too
    tiles: bool = False  # AMX: `rows` rows of two 16x16 f32 tiles, K in steps of `k_block` (tile_kernel_executable)
    k_block: int = 1  # K values per step of the kernel's loop: K must be a multiple of it (and of `group`)

    @property
    def columns(self) -> int:
        """Columns of the register tile (and of a packed panel of B): two vectors."""
        return 2 * self.lanes

    @property
    def row_multiple(self) -> int:
        """What a matmul's rows M must be a multiple of: the tile's rows, or with `row_tail` a workgroup's fewest."""
        return WORKGROUP_ROWS[-1] if self.row_tail else self.rows

    @property
    def acc(self) -> str:
        """The accumulator vector type."""
        return f"vector<{self.lanes}xf32>"


KERNELS = (  # for each element type the first whose features a target has is used
    # AMX: 16x16 f32 tiles summing 32 K per `tdpbf16ps`, a 32x32 block of four per step; B packed as for
    # vdpbf16ps (a panel's 16 columns of K pairs are one tile's rows). The bf16 GEMM 1024^3 on a Xeon
    # with AMX: 18.6 ms with the vdpbf16ps kernel, 2.2-2.4 ms with this one (XLA 2.4-2.8 ms).
    KernelType("bf16", ("+amx-bf16", "+amx-tile"), 2, "i32", "", "", 8, rows=32, convolutions=False, tiles=True,
               k_block=32),
    # vdpbf16ps: the microkernel's instruction, so the sums are its own, bit for bit.
    KernelType("bf16", ("+avx512bf16",), 2, "i32", "vector<32xbf16>",
               'llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"({acc}, {a}, {b}) : '
               f"({_ACC16}, vector<32xbf16>, vector<32xbf16>) -> {_ACC16}", 8),
    # One FMA per K, in K order: IREE's generated code sums the same way, bit for bit. Under 512 rows
    # the right operand's pack (a StableHLO transpose per call) cost more than IREE's: 64x1024x784
    # 1.18x, 128x1024x1024 1.03x, 256x3072x768 with bias and relu 1.12x (docs/performance.md); a
    # constant one is packed while compiling, and then any number of rows pays.
    KernelType("f32", ("+avx512f",), 1, "f32", _ACC16, _fma_step(_ACC16), 512),
    # AVX2 (16 registers), matmuls: 6 rows of 16 columns, 12 accumulators; a workgroup's rows past its
    # whole blocks of 6 run as one smaller block. IREE's data-tiled code steps 4 rows of two 8x8 tiles
    # (8 accumulators). On an AVX2 Zen 3, paired, this tile / IREE's: the f32 GEMM 1024^3 22.6 / 23.8 ms,
    # the MLP 2.55 / 2.86 ms, the transformer block 2.66 / 2.86 ms, BERT 11.2 / 11.8 ms. Under 512 rows
    # with B packed every call (256x1024x1024, 128x1024x1024, 64x784x1024) it ran within 3% of IREE's.
    # In a loop body with B the same every trip, IREE encoded A and ran a mostly padded tile per trip:
    # 256 decoding steps (`decode`, three 4x128x128 matmuls a step) 11.5 -> 9.7 ms, a tanh RNN of batch 4
    # and width 128 3.35 -> 2.54 ms, 16 rows through a 256-512-256 MLP 15.4 -> 13.6 ms, batch 8 of
    # width 256 2.62 -> 2.57 ms (paired); with B changing every trip, 1.37x slower, so not those.
    # Up to 256 rows, B [K, N] computed at run time is read in chunks instead of packed (data tiling packed
    # it every call): paired, one thread, the MLP with its weights as arguments 3.55 -> 3.06 ms, [64,4096]
    # x [4096,4096] 33.7 -> 30.1 ms, [4,1024] x [1024,4096] 3.07 -> 1.73 ms, [128,768] x [768,3072] 8.42
    # -> 7.52 ms; [128,1024] x [1024,1024] and [256,1024] x [1024,4096] within 2%. With workgroups of 64
    # rows, each copying B again, 256 and 1024 rows were 1.05x-1.16x slower than IREE.
    KernelType("f32", ("+avx2", "+fma"), 1, "f32", _ACC8, _fma_step(_ACC8), 512, rows=6, lanes=8,
               convolutions=False, row_tail=True, looped_rows=4, chunked_rows=256),
    # AVX2, convolutions: 4 rows of 16 columns, 8 accumulators. Only those IREE's
    # code runs slowly (AVX2 Zen 3, one 3x3 convolution each, oxla / IREE: 28x28x128 0.64x,
    # 14x14x128 0.06x, 56x56x64 stride 2 0.81x; 56x56x64 1.03x and 56x56x32 1.27x, so not those).
    # Output pixels that are no whole blocks (7x7) are rounded up to blocks: IREE's code ran the 7x7x512
    # convolution at 2 GFLOP/s. A kernel computed at run time (packed on every call) pays from one block
    # of pixels: IREE's code is as slow for those (3x3, kernel an argument, oxla / IREE: 14x14x256 2.9 /
    # 60.6 ms, 7x7x512 4.5 / 85.6 ms, 17x17x192 7x1 1.85 / 2.21 ms, 2x2 pixels of 512 channels 1.8 / 2.8
    # ms; 1x1 to 1024-2048 features 0.87x-1.02x), but one pixel (a 7x7 window over 7x7x512) took 1.19x.
    KernelType("f32", ("+avx2", "+fma"), 1, "f32", _ACC8, _fma_step(_ACC8), 4,
               rows=4, lanes=8, matmuls=False, conv_channels=(128, 64), ragged_conv_rows=True),
)


def kernels_for(features: set[str], convolutions: bool = False, tiles: bool = True) -> dict[str, KernelType]:
    """The kernel for each element type on a CPU with these target features (none for what it lacks), for
    matmuls or, with `convolutions`, for convolutions; without `tiles`, none of the AMX ones."""
    found: dict[str, KernelType] = {}
    for kind in KERNELS:
        takes = (kind.convolutions if convolutions else kind.matmuls) and (tiles or not kind.tiles)
        if kind.element not in found and takes and all(f in features for f in kind.features):
            found[kind.element] = kind
    return found


# The kernels an AVX-512 BF16 CPU gets: what matmul_shape and conv_shape assume unless told.
_AVX512_KERNELS = kernels_for({"+avx512f", "+avx512bf16"})


@dataclass(frozen=True)
class MatmulShape:
    """A matmul the kernel takes: [M, K] x B -> [M, N] f32, where B (`rhs`) is "kn" ([K, N]), "nk" ([N, K]),
    "packed": a constant oxla packs while compiling (packed_rhs), not at every call, or CHUNKED: [K, N]
    read by the kernel itself, unpacked."""

    element: str
    m: int
    n: int
    k: int
    rhs: str
    lead: tuple[int, ...] = ()  # A's dimensions before K when it has more than one (M is their product)
    kind: KernelType | None = dataclasses.field(default=None, compare=False, repr=False)  # AVX-512's if None

    def __post_init__(self) -> None:
        if self.kind is None:
            object.__setattr__(self, "kind", _AVX512_KERNELS[self.element])

    @property
    def matmul(self) -> "MatmulShape":
        """The matmul the kernel runs: this one (a ConvShape's is implicit)."""
        return self

    @property
    def symbol(self) -> str:
        """The executable's symbol: one per type and shape, shared by the right-operand layouts packed
        before it runs; another for CHUNKED."""
        return f"oxla_{self.element}_matmul_{self.m}x{self.n}x{self.k}" + ("_chunks" if self.rhs == CHUNKED else "")

    @property
    def caller(self) -> str:
        """The private function that packs the right operand and dispatches the kernel."""
        return f"{self.symbol}_{self.rhs}" + (f"_{'x'.join(map(str, self.lead))}" if self.lead else "")


def target_features(module) -> set[str]:
    """The features every executable target of the module's device targets has: empty unless they are all
    x86-64 CPUs."""
    return device_features(target_text(module))


def device_features(text: str) -> set[str]:
    """target_features of the printed device targets `text`."""
    targets = text.split("#hal.executable.target<")[1:]
    found = None
    for t in targets:
        if not (t.startswith('"llvm-cpu"') and 'target_triple = "x86_64' in t):
            return set()
        features = re.search(r'cpu_features = "([^"]*)"', t)
        named = set(features.group(1).split(",")) if features else set()
        found = named if found is None else found & named
    return found or set()


def _shape(value) -> tuple[list[int], str] | None:
    """(static shape, element type) of a ranked tensor value, else None."""
    try:
        shaped = ir.RankedTensorType(value.type)
    except ValueError:
        return None
    return (list(shaped.shape), str(shaped.element_type)) if shaped.has_static_shape else None


def contraction_dims(op) -> tuple[list, list, list, list] | None:
    """(lhs batching, rhs batching, lhs contracting, rhs contracting) of a dot or dot_general, else None
    when it has an algorithm (a product precision the kernel may not meet)."""
    if op.name == "stablehlo.dot":
        return [], [], [1], [0]
    if "algorithm" in op.attributes:
        return None
    dn = DotGeneralOp(op).dot_dimension_numbers
    return (list(dn.lhs_batching_dimensions), list(dn.rhs_batching_dimensions),
            list(dn.lhs_contracting_dimensions), list(dn.rhs_contracting_dimensions))


def matmul_shape(op, min_multiply_adds: int = 0, kinds: dict[str, KernelType] | None = None,
                 looped: bool = False) -> MatmulShape | None:
    """The kernel's view of a dot / dot_general, or None when the kernel does not take it.

    kinds: the kernel per element type (kernels_for; AVX-512's unless given). looped: a loop body runs
    the matmul with the same B every trip (then the kernel's `looped_rows` rule, where it has one)."""
    numbers = contraction_dims(op)
    shapes = [_shape(v) for v in (*list(op.operands)[:2], op.results[0])]
    if numbers is None or None in shapes:
        return None
    (lhs, lhs_type), (rhs, rhs_type), (_, result_type) = shapes
    kind = (_AVX512_KERNELS if kinds is None else kinds).get(lhs_type)
    if kind is None or not kind.matmuls or rhs_type != lhs_type or result_type != "f32" or len(lhs) < 2 \
            or len(rhs) != 2:
        return None
    lhs_batch, rhs_batch, lhs_sum, rhs_sum = numbers
    if lhs_batch or rhs_batch or lhs_sum != [len(lhs) - 1] or rhs_sum not in ([0], [1]):
        return None
    m, k = math.prod(lhs[:-1]), lhs[-1]
    n = rhs[0] if rhs_sum == [1] else rhs[1]
    layout = "packed" if defining(op.operands[1], "stablehlo.constant") else "nk" if rhs_sum == [1] else "kn"
    min_rows = kind.min_rows
    if looped and kind.looped_rows is not None:
        min_multiply_adds, min_rows = 0, kind.looped_rows
    if m % kind.row_multiple or n % kind.columns or k % kind.group or k % kind.k_block or m * n * k < min_multiply_adds:
        return None
    if m < min_rows and layout != "packed":  # the rows must pay for B's pack at every call
        if layout != "kn" or m > kind.chunked_rows:
            return None
        layout = CHUNKED  # or the kernel reads B itself
    return MatmulShape(kind.element, m, n, k, layout, tuple(lhs[:-1]) if len(lhs) > 2 else (), kind)


def packed_rhs(b: np.ndarray, shape: MatmulShape, transposed: bool) -> np.ndarray:
    """A constant B ([K, N], or [N, K] when transposed) as the kernel's panels of lanes [N/c, K/g, c]
    (c: the register tile's columns; bf16 pairs as int32), so that nothing is left to repack or retype
    when IREE compiles it."""
    kind = shape.kind
    g, columns, steps = kind.group, kind.columns, shape.k // kind.group
    panels = shape.n // columns
    if transposed:
        packed = b.reshape(panels, columns, steps, g).transpose(0, 2, 1, 3)
    else:
        packed = b.reshape(steps, g, panels, columns).transpose(2, 0, 3, 1)
    lanes = np.ascontiguousarray(packed).view(_LANE_DTYPES[kind.lane])
    return lanes.reshape(panels, steps, columns)


def _largest_divisor(extent: int, choices: tuple[int, ...]) -> int:
    """The first of `choices` (largest first) dividing `extent`; the last divides every extent the kernel takes."""
    return next(c for c in choices if extent % c == 0)


def _workgroup_block(m: int, n: int, columns: int, row_choices: tuple[int, ...] = WORKGROUP_ROWS,
                     balanced: bool = False) -> tuple[int, int]:
    """(rows, columns) of a workgroup's block of the result: the first of `row_choices` dividing M, and
    the first of WORKGROUP_COLUMNS dividing N (whole panels of `columns`) that leaves the grid at least
    MIN_WORKGROUPS blocks, where N allows, so that a small matmul is not left to one thread; `balanced`:
    a multiple of MIN_WORKGROUPS blocks where N allows (few large blocks, three over two threads, left
    one thread idle a third of the time)."""
    rows = _largest_divisor(m, row_choices)
    widths = [c for c in WORKGROUP_COLUMNS if n % c == 0 and c % columns == 0]
    enough = [c for c in widths if n // c * (m // rows) >= MIN_WORKGROUPS]
    even = [c for c in enough if n // c * (m // rows) % MIN_WORKGROUPS == 0] if balanced else []
    return rows, (even or enough or widths[-1:])[0]


def _as_operand(name: str, source: str, kind: KernelType) -> tuple[list[str], str]:
    """(lines, value): the loaded vector `source` as the step's operand type (a bitcast where they differ)."""
    lanes = f"vector<{kind.lanes}x{kind.lane}>"
    if lanes == kind.operand:
        return [], source
    return [f"      %{name} = vector.bitcast {source} : {lanes} to {kind.operand}"], f"%{name}"


def _packed_b(kind: KernelType, h: int) -> str:
    """Vector h of a step's B in packed panels %rhs [N/c, K/g, c]: panel %j, step %k."""
    return f"%rhs[%j, %k, %c{h * kind.lanes}]"


def _step_body(kind: KernelType, lhs: str, rhs: str, a_index=lambda r: f"%row{r}, %k",
               b_index=_packed_b) -> list[str]:
    """One step over K (%k): two vectors of B, a broadcast value of each row of A, two multiply-adds per
    row into %p0, %p1, ...

    a_index(r): the indices of row r's lane of A at this step; b_index(kind, h): B's vector h (memref and
    indices), of type `rhs`.
    """
    lanes = f"vector<{kind.lanes}x{kind.lane}>"
    body, columns = [], []
    for h in range(2):
        body.append(f"      %v{h} = vector.load {b_index(kind, h)} : {rhs}, {lanes}")
        lines, value = _as_operand(f"w{h}", f"%v{h}", kind)
        body += lines
        columns.append(value)
    for r in range(kind.rows):
        body += [f"      %x{r} = memref.load %lhs[{a_index(r)}] : {lhs}",
                 f"      %y{r} = vector.broadcast %x{r} : {kind.lane} to {lanes}"]
        lines, row = _as_operand(f"z{r}", f"%y{r}", kind)
        body += lines
        body += [f"      %n{t} = " + kind.step.format(acc=f"%p{t}", a=row, b=columns[t - 2 * r])
                 for t in (2 * r, 2 * r + 1)]
    return body


def _executable(kind: KernelType, symbol: str, grid: tuple[int, int], bindings: tuple[str, str, str],
                body: list[str]) -> str:
    """A kernel's `stream.executable` as MLIR text: a grid of (x, y) workgroups around `body`.

    In the body's scope: the bindings %lhs, %rhs and %out as these memref
    types, the workgroup's %wx and %wy, the indices %c0..%c<rows - 1> and
    %c<lanes>, %rows and %columns (the register tile's) and %zero (an
    accumulator of zeros).
    """
    constants = [f"  %c{c} = arith.constant {c} : index" for c in sorted({*range(kind.rows), kind.lanes})]
    subspans = [f"  %{name} = stream.binding.subspan %{name}_binding[%c0] : !stream.binding -> {memref}"
                for name, memref in zip(("lhs", "rhs", "out"), bindings)]
    lines = [
        f"stream.executable private @{symbol} {{",
        f"stream.executable.export public @{symbol} workgroups() -> (index, index, index) {{",
        f"  %x = arith.constant {grid[0]} : index",
        f"  %y = arith.constant {grid[1]} : index",
        "  %one = arith.constant 1 : index",
        "  stream.return %x, %y, %one : index, index, index",
        "}",
        "builtin.module {",
        f"func.func @{symbol}(%lhs_binding: !stream.binding, %rhs_binding: !stream.binding, "
        "%out_binding: !stream.binding) {",
        *constants,
        f"  %rows = arith.constant {kind.rows} : index",
        f"  %columns = arith.constant {kind.columns} : index",
        f"  %zero = arith.constant dense<0.0> : {kind.acc}",
        *subspans,
        "  %wx = stream.dispatch.workgroup.id[0] : index",
        "  %wy = stream.dispatch.workgroup.id[1] : index",
        *body,
        "  return",
        "}",
        "}",
        "}",
    ]
    return "\n".join(lines)


def _accumulating(kind: KernelType, result: str, loop: str, initial, carried: str, inner: list[str],
                  yielded: str) -> list[str]:
    """`%{result}:<n> = scf.for {loop}` carrying the register tile's n accumulators as %{carried}0.. from
    initial(t), with the body `inner`, which defines the next values %{yielded}0.."""
    accs = range(2 * kind.rows)
    types = ", ".join([kind.acc] * len(accs))
    carry = ", ".join(f"%{carried}{t} = {initial(t)}" for t in accs)
    return [f"    %{result}:{len(accs)} = scf.for {loop} iter_args({carry}) -> ({types}) {{",
            *inner,
            f"      scf.yield {', '.join(f'%{yielded}{t}' for t in accs)} : {types}",
            "    }"]


def _walk(panels: int, block: int, body: list[str], tail: tuple[int, list[str]] | None = None,
          per_panel: tuple[str, ...] = (), outer: tuple[list[str], list[str]] = ([], [])) -> list[str]:
    """Workgroup (%wx, %wy)'s walk: its `panels` panels of the register tile's columns (%j) and, for each,
    its `block` rows in blocks of the tile's rows starting at %i, around `body`; with a `tail` (rows,
    body), its last rows are one block of that many, around that body. `per_panel`: lines starting each
    panel, before its rows; `outer`: lines opening and closing a region around the panels."""
    rest, rest_body = tail or (0, [])
    return [
        f"  %panels = arith.constant {panels} : index",
        f"  %block = arith.constant {block} : index",
        *([f"  %full = arith.constant {block - rest} : index"] if rest else []),
        "  %j0 = arith.muli %wx, %panels : index",
        "  %j1 = arith.addi %j0, %panels : index",
        "  %i0 = arith.muli %wy, %block : index",
        f"  %i1 = arith.addi %i0, {'%full' if rest else '%block'} : index",
        *outer[0],
        "  scf.for %j = %j0 to %j1 step %c1 {",
        *per_panel,
        "   scf.for %i = %i0 to %i1 step %rows {",
        *body,
        "   }",
        *(["   %i2 = arith.addi %i0, %block : index", f"   scf.for %i = %i1 to %i2 step %c{rest} {{", *rest_body,
           "   }"] if rest else []),
        "  }",
        *outer[1],
    ]


def _blocks(kind: KernelType, panels: int, block: int, out: str, block_body, per_panel: tuple[str, ...] = (),
            outer: tuple[list[str], list[str]] = ([], [])) -> list[str]:
    """_walk around block_body(k), which defines the rows %row0.. of a block of register tile k's rows and
    its accumulators %sum, then stores them to `out`. Where `kind`'s rows do not divide `block` (a kind with
    `row_tail`), the last rows are one block of a tile of the rows left. per_panel, outer: as for _walk."""
    def stored(k: KernelType) -> list[str]:
        return [
            *block_body(k),
            "    %col0 = arith.muli %j, %columns : index",
            f"    %col1 = arith.addi %col0, %c{k.lanes} : index",
            *(f"    vector.store %sum#{2 * r + h}, %out[%row{r}, %col{h}] : {out}, {k.acc}"
              for r in range(k.rows) for h in range(2)),
        ]
    rest = block % kind.rows
    return _walk(panels, block, stored(kind),
                 (rest, stored(dataclasses.replace(kind, rows=rest))) if rest else None, per_panel, outer)


def kernel_executable(shape: MatmulShape) -> str:
    """The kernel's `stream.executable` for one type and shape, as MLIR text (tile_kernel_executable's
    for an AMX kernel).

    Bindings: the left operand as 32-bit lanes [M, K/g] (g K values per
    lane: bf16 pairs), the packed right operand [N/c, K/g, c] (c columns
    of one lane per row), the result [M, N] f32. Workgroup (x, y) owns a
    block of columns and one of rows.
    """
    kind = shape.kind
    if kind.tiles:
        return tile_kernel_executable(shape)
    m, n, steps, columns = shape.m, shape.n, shape.k // kind.group, kind.columns
    chunked = shape.rhs == CHUNKED
    wg_rows, wg_cols = _workgroup_block(m, n, columns, CHUNKED_WORKGROUP_ROWS if chunked else WORKGROUP_ROWS, chunked)
    lhs = f"memref<{m}x{steps}x{kind.lane}>"
    out = f"memref<{m}x{n}xf32>"
    if chunked:
        return _chunked_executable(shape, wg_rows, wg_cols, lhs, out)
    rhs = f"memref<{n // columns}x{steps}x{columns}x{kind.lane}>"
    body = [
        f"  %steps = arith.constant {steps} : index",
        *_blocks(kind, wg_cols // columns, wg_rows, out, lambda k: [
            *(f"    %row{r} = arith.addi %i, %c{r} : index" for r in range(k.rows)),
            *_accumulating(k, "sum", "%k = %c0 to %steps step %c1", lambda t: "%zero", "p",
                           _step_body(k, lhs, rhs), "n")]),
    ]
    return _executable(kind, shape.symbol, (n // wg_cols, m // wg_rows), (lhs, rhs, out), body)


def _chunked_executable(shape: MatmulShape, wg_rows: int, wg_cols: int, lhs: str, out: str) -> str:
    """kernel_executable for B [K, N] as it is (CHUNKED): for each chunk of CHUNK_STEPS rows of B, each
    panel's columns of the chunk are copied to a buffer on the stack, which every block of rows then reads
    (a row read straight from B per step missed the TLB: B's rows lie N floats apart). The sums carry over
    chunks through the result, whose f32 values they are, so they are the packed kernel's bit for bit;
    the chunks outermost keep their rows of B in the TLB for all of a workgroup's panels."""
    kind = shape.kind
    m, n, steps, columns, lanes = shape.m, shape.n, shape.k, kind.columns, kind.lanes
    chunk = min(steps, CHUNK_STEPS)
    rhs, buf, vector = f"memref<{steps}x{n}xf32>", f"memref<{chunk}x{columns}xf32>", f"vector<{lanes}xf32>"
    chunks = ([
        "  scf.for %kc = %c0 to %steps step %chunk {",
        "   %kc1 = arith.addi %kc, %chunk : index",
        "   %kend = arith.minui %kc1, %steps : index",
        "   %first = arith.cmpi eq, %kc, %c0 : index"], ["  }"])
    copy = [
        "    %b0 = arith.muli %j, %columns : index",
        f"    %b1 = arith.addi %b0, %c{lanes} : index",
        "    scf.for %k = %kc to %kend step %c1 {",
        "     %kk = arith.subi %k, %kc : index",
        *(line for h in range(2) for line in (
            f"     %u{h} = vector.load %rhs[%k, %b{h}] : {rhs}, {vector}",
            f"     vector.store %u{h}, %buf[%kk, %c{h * lanes}] : {buf}, {vector}")),
        "    }",
    ]

    def block_body(k: KernelType) -> list[str]:
        accs = range(2 * k.rows)
        types = ", ".join([k.acc] * len(accs))
        return [
            *(f"    %row{r} = arith.addi %i, %c{r} : index" for r in range(k.rows)),
            f"    %init:{len(accs)} = scf.if %first -> ({types}) {{",
            f"      scf.yield {', '.join(['%zero'] * len(accs))} : {types}",
            "    } else {",
            *(f"      %o{2 * r + h} = vector.load %out[%row{r}, %b{h}] : {out}, {k.acc}"
              for r in range(k.rows) for h in range(2)),
            f"      scf.yield {', '.join(f'%o{t}' for t in accs)} : {types}",
            "    }",
            *_accumulating(k, "sum", "%k = %kc to %kend step %c1", lambda t: f"%init#{t}", "p",
                           ["      %kk = arith.subi %k, %kc : index",
                            *_step_body(k, lhs, buf, b_index=lambda _, h: f"%buf[%kk, %c{h * lanes}]")], "n"),
        ]

    body = [
        f"  %steps = arith.constant {steps} : index",
        f"  %chunk = arith.constant {chunk} : index",
        f"  %buf = memref.alloca() alignment = 64 : {buf}",
        *_blocks(kind, wg_cols // columns, wg_rows, out, block_body, tuple(copy), chunks),
    ]
    return _executable(kind, shape.symbol, (n // wg_cols, m // wg_rows), (lhs, rhs, out), body)


_AMX = "!llvm.x86_amx"


def _tile_op(intrinsic: str, operands: list[str], types: list[str], result: str | None = _AMX) -> str:
    """An AMX intrinsic call (the `.internal` forms, whose tile shapes LLVM configures itself)."""
    results = f" -> {result}" if result else " -> ()"
    return f'llvm.call_intrinsic "llvm.x86.{intrinsic}.internal"({", ".join(operands)}) : ({", ".join(types)}){results}'


def _address(name: str, base: str, offset_lines: list[str], offset: str) -> list[str]:
    """Lines defining %{name} (an !llvm.ptr) as the index `base` plus the byte offset `offset` (an index)."""
    return [*offset_lines,
            f"    %{name}_at = arith.addi {base}, {offset} : index",
            f"    %{name}_i = arith.index_cast %{name}_at : index to i64",
            f"    %{name} = llvm.inttoptr %{name}_i : i64 to !llvm.ptr"]


def tile_kernel_executable(shape: MatmulShape) -> str:
    """The AMX kernel's `stream.executable`: the bindings and workgroups of kernel_executable; each block of
    32 rows and a panel's 32 columns sums four 16x16 f32 tiles, each step loading two tiles of A (16 rows
    of 32 bf16) and two of B (16 K pairs of 16 columns) for four `tdpbf16ps`, and stores them at the end."""
    kind = shape.kind
    m, n, steps, columns = shape.m, shape.n, shape.k // kind.group, kind.columns
    wg_rows, wg_cols = _largest_divisor(m, WORKGROUP_ROWS[:2]), _largest_divisor(n, WORKGROUP_COLUMNS)
    lhs = f"memref<{m}x{steps}x{kind.lane}>"
    rhs = f"memref<{n // columns}x{steps}x{columns}x{kind.lane}>"
    out = f"memref<{m}x{n}xf32>"
    step = kind.k_block // kind.group  # lanes of K per step: 16 rows of B's tiles, 64 bytes of A's rows
    load, shape16 = ["i16", "i16", "!llvm.ptr", "i64"], ["%tile_rows", "%tile_bytes"]
    multiply = ["i16", "i16", "i16", _AMX, _AMX, _AMX]
    tiles = [(r, h) for r in range(2) for h in range(2)]
    inner = [
        "      %a_row = arith.muli %i, %steps : index",
        "      %a_lane = arith.addi %a_row, %k : index",
        *_address("a0", "%a_base", ["      %a_off = arith.muli %a_lane, %c4 : index"], "%a_off"),
        *_address("a1", "%a_base", ["      %a1_off = arith.addi %a_off, %a_next : index"], "%a1_off"),
        "      %b_row = arith.muli %j, %steps : index",
        "      %b_lane = arith.addi %b_row, %k : index",
        "      %b_col = arith.muli %b_lane, %columns : index",
        *_address("b0", "%b_base", ["      %b_off = arith.muli %b_col, %c4 : index"], "%b_off"),
        *_address("b1", "%b_base", ["      %b1_off = arith.addi %b_off, %tile_row_bytes : index"], "%b1_off"),
        *(f"      %ta{r} = " + _tile_op("tileloadd64", [*shape16, f"%a{r}", "%a_stride"], load) for r in range(2)),
        *(f"      %tb{h} = " + _tile_op("tileloadd64", [*shape16, f"%b{h}", "%b_stride"], load) for h in range(2)),
        *(f"      %n{2 * r + h} = " + _tile_op("tdpbf16ps", ["%tile_rows", "%tile_bytes", "%tile_bytes",
                                                             f"%p{2 * r + h}", f"%ta{r}", f"%tb{h}"], multiply)
          for r, h in tiles),
    ]
    stores = []
    for r, h in tiles:
        name = f"o{r}{h}"
        stores += _address(name, "%o_base", [
            f"    %{name}_row = arith.addi %i, %c{16 * r} : index",
            f"    %{name}_first = arith.muli %{name}_row, %n_cols : index",
            f"    %{name}_col0 = arith.muli %j, %columns : index",
            f"    %{name}_col = arith.addi %{name}_col0, %c{16 * h} : index",
            f"    %{name}_lane = arith.addi %{name}_first, %{name}_col : index",
            f"    %{name}_off = arith.muli %{name}_lane, %c4 : index"], f"%{name}_off")
        stores.append("    " + _tile_op("tilestored64", [*shape16, f"%{name}", "%o_stride", f"%sum#{2 * r + h}"],
                                        [*load, _AMX], None))
    accs = ", ".join([_AMX] * 4)
    body = [
        f"  %steps = arith.constant {steps} : index",
        f"  %n_cols = arith.constant {n} : index",
        f"  %a_next = arith.constant {16 * steps * 4} : index",
        f"  %tile_row_bytes = arith.constant {step * 4} : index",
        f"  %tile_rows = arith.constant 16 : i16",
        f"  %tile_bytes = arith.constant {step * 4} : i16",
        f"  %a_stride = arith.constant {steps * 4} : i64",
        f"  %b_stride = arith.constant {columns * 4} : i64",
        f"  %o_stride = arith.constant {n * 4} : i64",
        f"  %a_base = memref.extract_aligned_pointer_as_index %lhs : {lhs} -> index",
        f"  %b_base = memref.extract_aligned_pointer_as_index %rhs : {rhs} -> index",
        f"  %o_base = memref.extract_aligned_pointer_as_index %out : {out} -> index",
        *_walk(wg_cols // columns, wg_rows, [
            "    %tile_zero = " + _tile_op("tilezero", shape16, ["i16", "i16"]),
            f"    %sum:4 = scf.for %k = %c0 to %steps step %c{step} iter_args("
            + ", ".join(f"%p{t} = %tile_zero" for t in range(4)) + f") -> ({accs}) {{",
            *inner,
            f"      scf.yield %n0, %n1, %n2, %n3 : {accs}",
            "    }",
            *stores]),
    ]
    return _executable(kind, shape.symbol, (n // wg_cols, m // wg_rows), (lhs, rhs, out), body)


def _retyped(name: str, source: str, from_type: str, to_type: str) -> tuple[list[str], str]:
    """(lines, value): `source` with another tensor type of the same bytes (a flow bitcast across element
    types, a StableHLO reshape within one, nothing when the types match)."""
    if from_type == to_type:
        return [], source
    if from_type.rsplit("x", 1)[1] == to_type.rsplit("x", 1)[1]:
        return [f"  %{name} = stablehlo.reshape {source} : ({from_type}) -> {to_type}"], f"%{name}"
    return [f"  %{name} = flow.tensor.bitcast {source} : {from_type} -> {to_type}"], f"%{name}"


def _packed_columns(source: str, source_type: str, shape: MatmulShape) -> tuple[list[str], str]:
    """(lines, value): `source` (B as [K, N], or any shape of those elements in that order) as the kernel's
    panels of lanes: [K/g, g, N/c, c] transposed to [N/c, K/g, c, g], then read as lanes."""
    kind = shape.kind
    g, e, columns = kind.group, shape.element, kind.columns
    steps, panels = shape.k // g, shape.n // columns
    split, packed = f"tensor<{steps}x{g}x{panels}x{columns}x{e}>", f"tensor<{panels}x{steps}x{columns}x{g}x{e}>"
    as_lanes, value = _retyped("panels", "%packed", packed, f"tensor<{panels}x{steps}x{columns}x{kind.lane}>")
    return [f"  %split = stablehlo.reshape {source} : ({source_type}) -> {split}",
            f"  %packed = stablehlo.transpose %split, dims = [2, 0, 3, 1] : ({split}) -> {packed}", *as_lanes], value


def kernel_caller(shape: MatmulShape) -> str:
    """The private function that packs the right operand and dispatches the kernel, as MLIR text.

    B [K, N] is split into K groups and panels of c columns (the register
    tile's) and transposed to [N/c, K/g, c, g]; B [N, K] is read as lanes
    [N, K/g], split into panels and transposed to [N/c, K/g, c]; a packed
    constant arrives as [N/c, K/g, c, g]. All are then read as lanes. A
    CHUNKED B [K, N] goes to the kernel as it is.
    """
    kind = shape.kind
    m, n, k, g, e, lane, columns = shape.m, shape.n, shape.k, kind.group, shape.element, kind.lane, kind.columns
    steps, panels = k // g, n // columns
    lead = "x".join(map(str, shape.lead or (m,)))
    lhs, lanes = f"tensor<{lead}x{k}x{e}>", f"tensor<{panels}x{steps}x{columns}x{lane}>"
    dispatched = lanes  # the type of B the kernel binds
    if shape.rhs == "packed":  # packed while compiling, as lanes (packed_rhs)
        rhs, pack, packed_value = lanes, [], "%rhs"
    elif shape.rhs == CHUNKED:  # [K, N] read by the kernel as it is
        rhs = dispatched = f"tensor<{k}x{n}x{e}>"
        pack, packed_value = [], "%rhs"
    elif shape.rhs == "nk":  # [N, K] as lanes [N, K/g] -> [N/c, c, K/g] -> [N/c, K/g, c]
        rhs, split = f"tensor<{n}x{k}x{e}>", f"tensor<{panels}x{columns}x{steps}x{lane}>"
        as_lanes, rows = _retyped("rhs_lanes", "%rhs", rhs, f"tensor<{n}x{steps}x{lane}>")
        as_panels, value = _retyped("split", rows, f"tensor<{n}x{steps}x{lane}>", split)
        pack = [*as_lanes, *as_panels,
                f"  %panels = stablehlo.transpose {value}, dims = [0, 2, 1] : ({split}) -> {lanes}"]
        packed_value = "%panels"
    else:  # [K, N]
        rhs = f"tensor<{k}x{n}x{e}>"
        pack, packed_value = _packed_columns("%rhs", rhs, shape)
    lhs_lines, lhs_value = _retyped("lhs_lanes", "%lhs", lhs, f"tensor<{m}x{steps}x{lane}>")
    result = f"tensor<{lead}x{n}xf32>"
    out_lines, out_value = _retyped("result", "%out", f"tensor<{m}x{n}xf32>", result)
    return "\n".join([
        f"func.func private @{shape.caller}(%lhs: {lhs}, %rhs: {rhs}) -> {result} {{",
        *lhs_lines,
        *pack,
        f"  %out = flow.dispatch @{shape.symbol}::@{shape.symbol}({lhs_value}, {packed_value}) : "
        f"(tensor<{m}x{steps}x{lane}>, {dispatched}) -> tensor<{m}x{n}xf32>",
        *out_lines,
        f"  return {out_value} : {result}",
        "}"])


# Convolutions as implicit matmuls: the rows are output pixels, K runs over the window and the input
# channels, B is the HWIO kernel, packed while compiling when it is a constant, else by the caller. Row
# r of a block of pixels reads its lanes straight from the (padded) NHWC input, so nothing is unfolded
# into memory.

# The dimension numbers the kernel takes: NHWC input and output, HWIO kernel.
_NHWC_HWIO = ((0, 3, [1, 2]), (2, 3, [0, 1]), (0, 3, [1, 2]))


@dataclass(frozen=True)
class ConvShape:
    """An NHWC x HWIO convolution the kernel takes, its input as padded by `padding`."""

    element: str
    batch: int
    height: int  # of the padded input
    width: int
    channels: int
    window: tuple[int, int]
    features: int
    padding: tuple[int, int, int, int]  # top, bottom, left, right
    strides: tuple[int, int] = (1, 1)
    dilations: tuple[int, int] = (1, 1)  # of the window
    kind: KernelType | None = dataclasses.field(default=None, compare=False, repr=False)  # AVX-512's if None
    packed: bool = True  # the kernel a constant packed while compiling; else packed by the caller on every call

    def __post_init__(self) -> None:
        if self.kind is None:
            object.__setattr__(self, "kind", _AVX512_KERNELS[self.element])

    @property
    def out_height(self) -> int:
        return (self.height - (self.window[0] - 1) * self.dilations[0] - 1) // self.strides[0] + 1

    @property
    def out_width(self) -> int:
        return (self.width - (self.window[1] - 1) * self.dilations[1] - 1) // self.strides[1] + 1

    @property
    def matmul(self) -> MatmulShape:
        """The implicit matmul: a row per output pixel, K over the window and the channels."""
        m = self.batch * self.out_height * self.out_width
        k = self.window[0] * self.window[1] * self.channels
        return MatmulShape(self.element, m, self.features, k, "packed" if self.packed else "kn", kind=self.kind)

    @property
    def symbol(self) -> str:
        """The executable's symbol: one per type, padded input, window and features."""
        steps = "".join(f"_{name}{a}x{b}" for name, (a, b) in (("s", self.strides), ("d", self.dilations))
                        if (a, b) != (1, 1))
        return (f"oxla_{self.element}_conv_{self.batch}x{self.height}x{self.width}x{self.channels}"
                f"_{self.window[0]}x{self.window[1]}x{self.features}{steps}")

    @property
    def caller(self) -> str:
        """The private function that pads the input (and packs a kernel computed at run time) and dispatches
        the kernel."""
        return f"{self.symbol}_pad{'_'.join(map(str, self.padding))}{'' if self.packed else '_kn'}"

    @property
    def block_rows(self) -> int:
        """The output pixels the kernel computes: the implicit matmul's rows rounded up to whole blocks of the
        register tile's rows (the last pixel is read again for the rest, which the caller drops)."""
        return -(-self.matmul.m // self.kind.rows) * self.kind.rows


def conv_shape(op, min_multiply_adds: int = 0, kinds: dict[str, KernelType] | None = None) -> ConvShape | None:
    """The kernel's view of a stablehlo.convolution, or None when the kernel does not take it.

    kinds: the kernel per element type (kernels_for; AVX-512's unless given)."""
    conv = ConvolutionOp(op)
    shapes = [_shape(v) for v in (conv.lhs, conv.rhs, op.results[0])]
    if None in shapes:
        return None
    (x, x_type), (w, w_type), (y, y_type) = shapes
    kind = (_AVX512_KERNELS if kinds is None else kinds).get(x_type)
    numbers = conv.dimension_numbers
    layout = ((numbers.input_batch_dimension, numbers.input_feature_dimension, list(numbers.input_spatial_dimensions)),
              (numbers.kernel_input_feature_dimension, numbers.kernel_output_feature_dimension,
               list(numbers.kernel_spatial_dimensions)),
              (numbers.output_batch_dimension, numbers.output_feature_dimension, list(numbers.output_spatial_dimensions)))
    if (kind is None or w_type != x_type or y_type != "f32" or len(x) != 4 or layout != _NHWC_HWIO
            or conv.lhs_dilation not in (None, [1, 1]) or any(conv.window_reversal or ())
            or conv.feature_group_count != 1 or conv.batch_group_count != 1):
        return None
    (top, bottom), (left, right) = conv.padding or [[0, 0], [0, 0]]
    if min(top, bottom, left, right) < 0:
        return None
    shape = ConvShape(kind.element, x[0], x[1] + top + bottom, x[2] + left + right, x[3], (w[0], w[1]), w[3],
                      (top, bottom, left, right), tuple(conv.window_strides or (1, 1)),
                      tuple(conv.rhs_dilation or (1, 1)), kind, defining(conv.rhs, "stablehlo.constant") is not None)
    matmul = shape.matmul
    fewest_channels = kind.conv_channels[shape.strides != (1, 1)]
    if ((matmul.m % kind.rows and not kind.ragged_conv_rows) or shape.features % kind.columns
            or shape.channels % kind.group
            or shape.channels < fewest_channels or matmul.m * matmul.n * matmul.k < min_multiply_adds):
        return None
    if not shape.packed and matmul.m < kind.min_rows:  # the pixels must pay for the kernel's pack at every call
        return None
    return shape


def conv_executable(shape: ConvShape) -> str:
    """The convolution kernel's `stream.executable`, as MLIR text.

    Bindings: the padded input as 32-bit lanes [N, H, W, C/g], the packed
    kernel [F/c, KH*KW*C/g, c] (c: the register tile's columns), the result
    [N*OH*OW, F] f32. Workgroup (x, y) owns a block of features and one of
    output pixels (the rows of the implicit matmul, across image rows and
    images), which it walks in blocks of the tile's rows: each pixel's
    input row and column are found once per block, then the window's rows
    and columns and, innermost, the channels are one matmul step each.
    """
    kind = shape.kind
    matmul, steps, columns, rows = shape.matmul, shape.channels // kind.group, kind.columns, shape.block_rows
    wg_rows = _largest_divisor(rows, WORKGROUP_ROWS)
    wg_cols = _largest_divisor(shape.features, WORKGROUP_COLUMNS)
    lhs = f"memref<{shape.batch}x{shape.height}x{shape.width}x{steps}x{kind.lane}>"
    rhs = f"memref<{shape.features // columns}x{matmul.k // kind.group}x{columns}x{kind.lane}>"
    out = f"memref<{rows}x{shape.features}xf32>"
    (stride_h, stride_w), (dilation_h, dilation_w) = shape.strides, shape.dilations
    ragged = rows != matmul.m  # rows past the last pixel read it again
    def block(k: KernelType) -> list[str]:
        """A block of register tile k's rows: where each output pixel %row{r} is and its window starts,
        then the window's rows, columns and channels, one matmul step each."""
        pixels = [line for r in range(k.rows) for line in (
            f"    %row{r} = arith.addi %i, %c{r} : index",
            *([f"    %pixel{r} = arith.minui %row{r}, %last_pixel : index"] if ragged else []),
            f"    %image{r} = arith.divui %{'pixel' if ragged else 'row'}{r}, %image_pixels : index",
            f"    %in_image{r} = arith.remui %{'pixel' if ragged else 'row'}{r}, %image_pixels : index",
            f"    %oh{r} = arith.divui %in_image{r}, %out_width : index",
            f"    %ow{r} = arith.remui %in_image{r}, %out_width : index",
            f"    %ih_start{r} = arith.muli %oh{r}, %stride_h : index",
            f"    %iw_start{r} = arith.muli %ow{r}, %stride_w : index")]
        channels = _accumulating(k, "channel_sums", "%ci = %c0 to %steps step %c1", lambda t: f"%s{t}", "p", [
            "      %k = arith.addi %k0, %ci : index",
            *_step_body(k, lhs, rhs, lambda r: f"%image{r}, %ih{r}, %iw{r}, %ci")], "n")
        taps = _accumulating(k, "tap_sums", "%kw = %c0 to %window_columns step %c1", lambda t: f"%q{t}", "s", [
            "      %kw_offset = arith.muli %kw, %dilation_w : index",
            *(f"      %iw{r} = arith.addi %iw_start{r}, %kw_offset : index" for r in range(k.rows)),
            "      %tap_row = arith.muli %kh, %window_columns : index",
            "      %tap = arith.addi %tap_row, %kw : index",
            "      %k0 = arith.muli %tap, %steps : index",
            *channels], "channel_sums#")
        return [
            *pixels,
            *_accumulating(k, "sum", "%kh = %c0 to %window_rows step %c1", lambda t: "%zero", "q", [
                "      %kh_offset = arith.muli %kh, %dilation_h : index",
                *(f"      %ih{r} = arith.addi %ih_start{r}, %kh_offset : index" for r in range(k.rows)),
                *taps], "tap_sums#")]

    body = [
        f"  %steps = arith.constant {steps} : index",
        f"  %image_pixels = arith.constant {shape.out_height * shape.out_width} : index",
        f"  %out_width = arith.constant {shape.out_width} : index",
        f"  %window_rows = arith.constant {shape.window[0]} : index",
        f"  %window_columns = arith.constant {shape.window[1]} : index",
        f"  %stride_h = arith.constant {stride_h} : index",
        f"  %stride_w = arith.constant {stride_w} : index",
        f"  %dilation_h = arith.constant {dilation_h} : index",
        f"  %dilation_w = arith.constant {dilation_w} : index",
        *([f"  %last_pixel = arith.constant {matmul.m - 1} : index"] if ragged else []),
        *_blocks(kind, wg_cols // columns, wg_rows, out, block),
    ]
    return _executable(kind, shape.symbol, (shape.features // wg_cols, rows // wg_rows), (lhs, rhs, out), body)


def conv_caller(shape: ConvShape) -> str:
    """The private function that pads the input, dispatches the kernel and shapes its rows as NHWC (less the
    rows past the last pixel, when it computes whole blocks past it)."""
    kind = shape.kind
    e, matmul = shape.element, shape.matmul
    top, bottom, left, right = shape.padding
    unpadded = f"tensor<{shape.batch}x{shape.height - top - bottom}x{shape.width - left - right}x{shape.channels}x{e}>"
    padded = f"tensor<{shape.batch}x{shape.height}x{shape.width}x{shape.channels}x{e}>"
    lanes = f"tensor<{shape.batch}x{shape.height}x{shape.width}x{shape.channels // kind.group}x{kind.lane}>"
    packed = f"tensor<{shape.features // kind.columns}x{matmul.k // kind.group}x{kind.columns}x{kind.lane}>"
    blocks, rows = f"tensor<{shape.block_rows}x{shape.features}xf32>", f"tensor<{matmul.m}x{shape.features}xf32>"
    result = f"tensor<{shape.batch}x{shape.out_height}x{shape.out_width}x{shape.features}xf32>"
    pixels = []
    if blocks != rows:
        pixels = [f"  %pixels = stablehlo.slice %blocks [0:{matmul.m}, 0:{shape.features}] : ({blocks}) -> {rows}"]
    pad, value = [], "%x"
    if any(shape.padding):
        pad = [f"  %pad_value = stablehlo.constant dense<0.000000e+00> : tensor<{e}>",
               f"  %padded = stablehlo.pad %x, %pad_value, low = [0, {top}, {left}, 0], high = [0, {bottom}, {right}, 0],"
               f" interior = [0, 0, 0, 0] : ({unpadded}, tensor<{e}>) -> {padded}"]
        value = "%padded"
    as_lanes, value = _retyped("lanes", value, padded, lanes)
    kernel, pack, kernel_value = packed, [], "%w"
    if not shape.packed:  # HWIO computed at run time: its elements in order are B [K, N]
        kernel = f"tensor<{shape.window[0]}x{shape.window[1]}x{shape.channels}x{shape.features}x{e}>"
        pack, kernel_value = _packed_columns("%w", kernel, matmul)
    return "\n".join([
        f"func.func private @{shape.caller}(%x: {unpadded}, %w: {kernel}) -> {result} {{",
        *pad,
        *as_lanes,
        *pack,
        f"  %blocks = flow.dispatch @{shape.symbol}::@{shape.symbol}({value}, {kernel_value}) : ({lanes}, {packed}) "
        f"-> {blocks}",
        *pixels,
        f"  %out = stablehlo.reshape {'%pixels' if pixels else '%blocks'} : ({rows}) -> {result}",
        f"  return %out : {result}",
        "}"])


def _packed_constant(value, shape: MatmulShape, transposed: bool):
    """A new constant holding the constant `value` in the kernel's panels (at the insertion point)."""
    owner = defining(value, "stablehlo.constant").operation
    lanes = packed_rhs(constant_value(owner), shape, transposed)
    kind = shape.kind
    lane_type = ir.F32Type.get() if kind.lane == "f32" else ir.IntegerType.get_signless(32)
    tensor = ir.RankedTensorType.get(list(lanes.shape), lane_type)
    if ir.DenseElementsAttr(owner.attributes["value"]).is_splat:  # keep a splat a splat
        attr = dense_elements(lanes, kind.lane)
    else:
        attr = ir.DenseElementsAttr.get(np.ascontiguousarray(lanes), type=tensor)
    return ir.Operation.create("stablehlo.constant", results=[tensor], attributes={"value": attr}).result


# Fewest multiply-adds of a matmul the kernel takes; smaller ones stay with IREE, whose dispatch can fuse
# the matmul's element-wise producers and consumers (see docs/performance.md).
MIN_MULTIPLY_ADDS = 1 << 23


_KERNEL_OPS = ("stablehlo.dot", "stablehlo.dot_general", "stablehlo.convolution")
# What a shape adds to the module, once per symbol: (the shape's attribute naming it, its text).
_MATMUL_DEFINITIONS = (("symbol", kernel_executable), ("caller", kernel_caller))
_CONV_DEFINITIONS = (("symbol", conv_executable), ("caller", conv_caller))


@register_pass
class MatmulKernel(Pass):
    """Runs large matmuls and NHWC convolutions through oxla's own dispatch (AVX-512: 8x32 tiles; AVX2: 6x16, 4x16)."""

    name = "oxla-llvmcpu-matmul-kernel"
    anchor = "builtin.module"
    min_multiply_adds: int = dataclasses.field(default=MIN_MULTIPLY_ADDS, metadata={
        "help": "leave smaller matmuls to IREE, whose dispatches fuse their producers and consumers"})

    def _plan(self, op, kinds: list[dict[str, KernelType]], conv_kinds: dict[str, KernelType],
              loops: LoopAnalysis):
        """(shape, its definitions (_MATMUL_DEFINITIONS or _CONV_DEFINITIONS), whether a constant B is
        [N, K]) for a matmul or convolution; shape None when the kernel does not take it. A matmul goes
        to the first of `kinds` that takes it (the AMX kernel's, else the vector one's)."""
        if op.name == "stablehlo.convolution":
            return conv_shape(op, self.min_multiply_adds, conv_kinds), _CONV_DEFINITIONS, False
        looped = loops.repeated(op) and loops.invariant(op.operands[1])
        shape = next((s for s in (matmul_shape(op, self.min_multiply_adds, k, looped) for k in kinds)
                      if s is not None), None)
        return shape, _MATMUL_DEFINITIONS, shape is not None and contraction_dims(op)[3] == [1]

    def run(self, module) -> None:
        """Replaces each dot or convolution the kernel takes by a call of its shape's caller (added once per shape)."""
        features = target_features(module)
        kinds = [kernels_for(features), kernels_for(features, tiles=False)]
        conv_kinds = kernels_for(features, convolutions=True)
        if not any(kinds) and not conv_kinds:
            return
        done: set[str] = {ir.StringAttr(op.attributes["sym_name"]).value for op in ir.ops(module)
                          if op.name in ("func.func", "stream.executable") and "sym_name" in op.attributes}
        texts: list[str] = []
        loops = LoopAnalysis(module)
        for op in [o for o in ir.ops(module) if o.name in _KERNEL_OPS]:
            shape, definitions, transposed = self._plan(op, kinds, conv_kinds, loops)
            if shape is None:
                continue
            for name, text in definitions:
                symbol = getattr(shape, name)
                if symbol not in done:
                    done.add(symbol)
                    texts.append(text(shape))
            with ir.InsertionPoint(op), op.location:
                operands = list(op.operands)[:2]
                packed = shape.matmul
                if packed.rhs == "packed":
                    operands[1] = _packed_constant(operands[1], packed, transposed)
                call = ir.Operation.create("func.call", results=[op.results[0].type], operands=operands,
                                           attributes={"callee": ir.FlatSymbolRefAttr.get(shape.caller)})
            rhs = op.operands[1].owner
            op.results[0].replace_all_uses_with(call.results[0])
            op.erase()
            if packed.rhs == "packed" and not list(rhs.results[0].uses):  # the packed copy replaced it
                rhs.erase()
        if texts:
            ir.append_definitions(module, "\n".join(texts))


def row_major_gemv(op) -> bool:
    """Whether `op` is x @ W^T for one row x [1, K] (or [K]) and an f32 W [N, K] computed at run time: a
    dot or dot_general without batch dimensions contracting x's last dimension with W's last one."""
    numbers = contraction_dims(op)
    shapes = [_shape(v) for v in (*list(op.operands)[:2], op.results[0])]
    if numbers is None or None in shapes or numbers[0] or numbers[1]:
        return False
    (x, x_type), (w, w_type), _ = shapes
    return (len(w) == 2 and numbers[3] == [1] and w_type == x_type == "f32" and len(x) in (1, 2)
            and x[:-1] in ([], [1]) and numbers[2] == [len(x) - 1] and not defining(op.operands[1], "stablehlo.constant"))


def _matvec(op):
    """x @ W^T as W @ x: IREE runs it as a linalg.matvec, not by transposing W on every call."""
    x, w = list(op.operands)[:2]
    vector = build.reshape(x, build.shape(x)[-1:])
    rows = build.one("stablehlo.dot_general", build.tensor(build.shape(w)[:1], build.element(op.results[0])), w,
                     vector, dot_dimension_numbers="#stablehlo.dot<lhs_contracting_dimensions = [1], "
                                                   "rhs_contracting_dimensions = [0]>")
    return build.reshape(rows, build.shape(op.results[0]))


@register_pass
class RowMajorGemvs(RewritePass):
    """Computes x @ W^T for one row x and a run-time W [N, K] as W @ x, which IREE does not transpose W for."""

    name = "oxla-llvmcpu-row-major-gemvs"
    anchor = "builtin.module"
    roots = ("stablehlo.dot", "stablehlo.dot_general")

    def matches(self, op) -> bool:
        return row_major_gemv(op)

    def rewrite(self, op) -> None:
        """IREE's global optimization turns x [1, K] times W [N, K] over K into a transpose of W (a copy of
        the whole matrix on every call) and a vecmat; W @ x becomes a matvec, which
        oxla-llvmcpu-gemv-reductions then runs along W's rows. PyTorch's Linear layers store W so: a
        decoding step's projections are such products (f32[1,4096] x f32[4096,4096]^T on an AVX2 Zen 3:
        27-53 ms -> 11 ms, XLA 110-127 ms)."""
        build.replace(op, _matvec)


# Half-precision operand types IREE's CPU code multiplies slowly, each with the x86-64 feature whose
# instructions give it a fast path (None: no x86-64 instruction multiplies it into f32 sums).
HALF_PRODUCT_FEATURES = {"bf16": "+avx512bf16", "f16": None}
_HALF_CONTRACTIONS = ("stablehlo.dot", "stablehlo.dot_general", "stablehlo.convolution")


def widens(element: str | None, features: set[str]) -> bool:
    """Whether oxla-llvmcpu-widen-half-contractions gives `element` contractions f32 operands on CPUs of
    these target_features."""
    return bool(features) and element in HALF_PRODUCT_FEATURES and HALF_PRODUCT_FEATURES[element] not in features


def widenable(op) -> str | None:
    """The operand type of a dot, dot_general or convolution of two bf16 or two f16 tensors into f32 or
    that same type with no algorithm attribute, else None."""
    if op.name not in _HALF_CONTRACTIONS or "algorithm" in op.attributes:
        return None
    operands = [_shape(v) for v in list(op.operands)[:2]]
    result = _shape(op.results[0])
    if any(o is None for o in operands) or result is None or operands[0][1] != operands[1][1]:
        return None
    element = operands[0][1]
    return element if element in HALF_PRODUCT_FEATURES and result[1] in ("f32", element) else None


@register_pass
class WidenHalfContractions(Pass):
    """bf16 and f16 matmuls and convolutions sum in f32, over f32 operands where the x86-64 CPU lacks the type's."""

    name = "oxla-llvmcpu-widen-half-contractions"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Gives each such contraction with a half result an f32 one, rounded once to the half type (XLA's
        sums; IREE summed a bf16 convolution in bf16: 3% off XLA's results), and converts the operands
        to f32 where the CPU lacks the type's instructions (a bf16 or f16 product is exact in f32).
        Without the instructions IREE's half-precision code is slow: on an AVX2 Zen 3 the zoo's bf16
        GEMM ran 70x slower than XLA, a bf16 GEMM with a bf16 result 90x, an f16 one 2x, a bf16 3x3
        convolution 2x-3x (docs/performance.md). An optimization barrier keeps IREE from folding the
        converts back into the contraction, whose half operands it would then widen element by element
        in the inner loop (twice the f32 time)."""
        features = target_features(module)  # empty for CPUs other than x86-64: f32 sums only
        for op, element in [(o, widenable(o)) for o in ir.ops(module)]:
            if element is not None and (widens(element, features) or _shape(op.results[0])[1] != "f32"):
                wide = widens(element, features)
                build.replace(op, lambda o: _widened(o, wide))


def _widened(op, wide_operands: bool):
    """`op` summing in f32 (over f32 operands behind a barrier, with `wide_operands`), rounded to its own
    result type."""
    f32 = ir.F32Type.get()
    operands = list(op.operands)[:2]
    if wide_operands:
        operands = build.barrier([build.convert(v, f32) for v in operands])
    sums = build.one(op.name, build.tensor(build.shape(op.results[0]), f32), *operands, **build.attributes(op))
    return build.convert(sums, build.element(op.results[0]))
