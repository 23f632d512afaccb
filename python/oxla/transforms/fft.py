"""stablehlo.fft as ops IREE compiles well: Stockham stages, or DFT matrix products.

- oxla-legalize-fft (every target): IREE lowers fft only for one f32
  dimension of power-of-two length and a static shape; other lengths,
  several dimensions, f64 and run-time sizes fail to compile. Those are
  computed here, an axis at a time (run-time sizes by DFT matrices).
- oxla-llvmcpu-staged-fft: IREE's own lowering of the forms it takes runs a
  bit-reversal gather and a radix-2 pass per factor of two, element by
  element; where stages apply they run instead.

Where every device target is an llvm-cpu one, both passes run an axis's
stages as one dispatch of butterflies (fft_kernels.py) rather than a
dispatch per stage (option cpu-kernels).

An axis whose length is 64 or more with prime factors of at most 16 runs as
stages (below); other axes as one DFT: a dot_general with constant cos and
sin matrices, on the real and imaginary parts (`stablehlo.real`/`imag`,
joined by `stablehlo.complex`), so that no complex constant is needed,
O(N^2) work. Per the spec, FFT/IFFT transform every dimension of
`fft_length`; RFFT takes the real DFT of the last one (keeping N/2+1
outputs) and then complex DFTs of the others; IRFFT inverts that: inverse
complex DFTs of the leading dimensions, then the Hermitian inverse of the
last one. Inverses are scaled by 1/N. Stages read and write complex
tensors through flow.tensor.bitcast, so both passes' output is for IREE.
An FFT or IFFT of a transposed tensor (JAX's fft along other axes) runs
along the transpose's operand instead, with calls inlined first to find it.
An fft whose lengths are not its operand's trailing dims is left alone, for
IREE to reject at its location.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from oxla import ir
from oxla.dialects.elements import dtype_of
from oxla.transforms import fft_kernels
from oxla.transforms.kernel_text import KernelCalls, cpu_lanes
from oxla.transforms.registry import Pass, register_pass
from oxla.transforms.runner import inline_calls
from oxla.dialects.stablehlo_build import (broadcast, complex_parts, convert, create, element, enum_name, i64_array, i64s,
                                           one, replace, reshape, shape, slice_to, splat, strided_slice, tensor,
                                           transpose)


def _real_type(value):
    """f32/f64: the element type, or that of its real and imaginary parts."""
    kind = element(value)
    return kind.element_type if isinstance(kind, ir.ComplexType) else kind


def _unit(turns: np.ndarray, length: int) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of 2*pi*turns/length for integer `turns`, with exact zeros, ones and symmetries.

    The angle is reduced exactly (in integers) to a quadrant and to at most
    pi/4 within it, so sin(pi) is 0 rather than 1.2e-16 and mirrored entries
    are equal.
    """
    turn = 4 * (turns % length)  # angle in units of pi/(2*length)
    quadrant, rest = turn // length, turn % length
    mirrored = 2 * rest > length
    small = np.where(mirrored, length - rest, rest) * (np.pi / 2) / length
    cos, sin = np.where(mirrored, np.sin(small), np.cos(small)), np.where(mirrored, np.cos(small), np.sin(small))
    rotations = [(cos, sin), (-sin, cos), (-cos, -sin), (sin, -cos)]
    return (np.choose(quadrant, [c for c, _ in rotations]), np.choose(quadrant, [s for _, s in rotations]))


def _cos_sin(rows: int, cols: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of 2*pi*k*n/length for k < rows, n < cols (see _unit)."""
    return _unit(np.arange(rows)[:, None] * np.arange(cols)[None, :], length)


def _matrix(values: np.ndarray, real):
    """A constant of the real element type: an [out, in] matrix, or a stage's table."""
    attr = ir.DenseElementsAttr.get(np.ascontiguousarray(values, dtype=dtype_of(real)),
                                    type=tensor(list(values.shape), real))
    return one("stablehlo.constant", attr.type, value=attr)


def _apply(x, matrix, dim: int = -1):
    """x times an [out, in] matrix along `dim`: out[.., i, ..] = sum_j x[.., j, ..] * matrix[i, j]."""
    rank, rows = len(shape(x)), shape(matrix)[0]
    dim %= rank
    dims = ir.Attribute.parse(f"#stablehlo.dot<lhs_contracting_dimensions = [{dim}], rhs_contracting_dimensions = [1]>")
    kept = [n for d, n in enumerate(shape(x)) if d != dim]
    product = one("stablehlo.dot_general", tensor(kept + [rows], element(x)), x, matrix, dot_dimension_numbers=dims)
    if dim == rank - 1:
        return product
    perm = list(range(dim)) + [rank - 1] + list(range(dim, rank - 1))  # the new dim back in place
    return one("stablehlo.transpose", tensor(shape(x)[:dim] + [rows] + shape(x)[dim + 1:], element(x)),
               product, permutation=i64_array(perm))


def _binary(name: str, lhs, rhs):
    """An elementwise stablehlo op of two same-typed values."""
    return one(f"stablehlo.{name}", lhs.type, lhs, rhs)


def _complex_dft(re, im, dim: int, length: int, inverse: bool):
    """The DFT (or inverse DFT, scaled by 1/length) along `dim` of re + i*im."""
    cos, sin = _cos_sin(length, length, length)
    scale = 1 / length if inverse else 1.0
    cos, sin = _matrix(cos * scale, element(re)), _matrix(sin * (scale if inverse else -scale), element(re))
    return (_binary("subtract", _apply(re, cos, dim), _apply(im, sin, dim)),
            _binary("add", _apply(im, cos, dim), _apply(re, sin, dim)))


def _real_dft(x, length: int):
    """The first length/2+1 outputs of the DFT of real x along its last dim."""
    cos, sin = _cos_sin(length // 2 + 1, length, length)
    return _apply(x, _matrix(cos, element(x))), _apply(x, _matrix(-sin, element(x)))


def _hermitian_inverse(re, im, length: int):
    """The real inverse DFT along the last dim from its length/2+1 leading terms (the rest are conjugates)."""
    terms = np.arange(length // 2 + 1)
    weights = np.where((terms == 0) | (2 * terms == length), 1.0, 2.0) / length  # DC and Nyquist appear once
    cos, sin = _cos_sin(length, len(terms), length)
    return _binary("add", _apply(re, _matrix(cos * weights, element(re))),
                   _apply(im, _matrix(-sin * weights, element(re))))


def _join(re, im, result_type):
    """The complex tensor re + i*im."""
    return one("stablehlo.complex", result_type, re, im)


# Transforms along one axis of a length with small prime factors run as Stockham stages instead: each
# stage is one element-wise expression (IREE gives it one dispatch, one pass over the data), O(N log N)
# work in all, and the stages leave the result in order. The data are "planes": the axis's tensor as
# [lead, length, 2, trail], real and imaginary parts side by side in each row, so that one expression
# writes both and the trailing elements are contiguous vectors. A transform along the last axis
# (trail 1) splits its length as n1 x n2 (the four-step method): n1-point transforms of the columns,
# each vectorized across the n2 of a row, twiddle factors, a transpose, and n2-point transforms vectorized
# across the n1. A complex input's bytes are read as pairs of reals (flow.tensor.bitcast) and transposed
# into planes, and the result's planes joined back into pairs (i64 words of f32 parts, see _interleaved)
# and read as complex: IREE's code for complex elements takes them one at a time (stablehlo.real of
# c64[64,1024] 0.05-0.1 ms, the transpose of its pairs 0.035 ms on an AVX2 Zen 3). Between the axes of a
# transform over several, the planes stay planes (_Planes): regrouped by one transpose, or read as they
# are where their runs are whole rows of the next axis (fft2 of c64[8,256,256] 5.1 -> 4.3 ms). On llvm-cpu
# an axis's stages are one kernel instead (_kernel_stages): it reads complex values as pairs and writes a
# complex result as pairs (no transposes into planes and out), multiplies the four-step method's twiddles
# in and writes its second half in whole rows, or runs both halves and the transpose itself where a row
# fits a workgroup's stack (_fused_four_step); an RFFT's halves are taken apart by a kernel too.
_VECTOR = 8  # trailing elements a stage wants contiguous: an AVX2 vector of f32
_LARGEST_RADIX = 16  # a stage of radix p costs like a p-point DFT matrix per element: larger factors take one
_STAGED_FROM = 64  # shorter transforms stay one DFT matrix product


def _radices(length: int) -> list[int] | None:
    """The stage radices of `length`: fours, a two, then odd primes; None when a prime factor exceeds
    _LARGEST_RADIX."""
    radices = []
    while length % 4 == 0:
        radices, length = radices + [4], length // 4
    if length % 2 == 0:
        radices, length = radices + [2], length // 2
    prime = 3
    while length > 1:
        if prime > _LARGEST_RADIX:
            return None
        while length % prime == 0:
            radices, length = radices + [prime], length // prime
        prime += 2
    return radices


def _split(length: int) -> tuple[int, int] | None:
    """(n1, n2) with n1 * n2 == length and n2 >= _VECTOR, the one whose stages cost least (_stage_cost), then
    with n2 nearest sqrt(length)."""
    def cost(split):
        n1, n2 = split
        return _stage_cost(n1, n2) + _stage_cost(n2, n1), abs(n2 - length ** 0.5)

    splits = [(length // n2, n2) for n2 in range(_VECTOR, length // 2 + 1) if length % n2 == 0]
    return min(splits, key=cost, default=None)


def _stage_cost(length: int, trail: int) -> float:
    """The relative cost of the stages of `length` over rows of `trail`: their radices (terms per element),
    times the share of vector lanes a row of `trail` fills. Splits of 1000 for c64[64,1000] on an AVX2 Zen 3
    ran in this order: 125 x 8 and 8 x 125 0.52-0.55 ms, 40 x 25, 50 x 20, 25 x 40 0.70-0.76 ms, 100 x 10
    1.1 ms."""
    return sum(_radices(length)) * (-(-trail // _VECTOR) * _VECTOR / trail)


def _staged(length: int, trail: int) -> bool:
    """True where a transform of `length` with `trail` contiguous elements after its axis runs as stages."""
    if length < _STAGED_FROM or _radices(length) is None:
        return False
    return trail >= _VECTOR or _split(length) is not None


def _staged_along(x, dim: int, length: int) -> bool:
    """_staged for axis `dim` of x (a tensor, or planes): stages need a static shape (their reshapes and
    bitcasts take no sizes)."""
    static = isinstance(x, _Planes) or ir.RankedTensorType(x.type).has_static_shape
    return static and _staged(length, _trail(x, dim))


def _stage_table(radix: int, span: int, sign: int) -> np.ndarray:
    """[radix out, radix in, span, 2 out parts, 2 in parts]: a stage's butterfly times its twiddles, as the
    real matrix of each complex factor w^(k_in (k_out span + s)), w = exp(sign 2 pi i / (radix span))."""
    k_out, k_in, s = np.meshgrid(np.arange(radix), np.arange(radix), np.arange(span), indexing="ij")
    cos, sin = _unit(k_in * (k_out * span + s), radix * span)
    return _parts_matrix(cos, sign * sin)


def _parts_matrix(cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """cos + i sin as [..., 2 out parts, 2 in parts] real matrices: (re, im) -> (re cos - im sin, re sin + im cos)."""
    return np.stack([np.stack([cos, -sin], -1), np.stack([sin, cos], -1)], -2)


def _mix(pieces, tables, out: list[int], piece_dims: list[int], table_dims: list[int]):
    """sum of piece * table over pairs, both broadcast to `out` (all-zero tables skipped)."""
    total = None
    for piece, table in zip(pieces, tables):
        if not table.any():
            continue
        term = _binary("multiply", broadcast(piece, out, piece_dims),
                       broadcast(_matrix(table, element(piece)), out, table_dims))
        total = term if total is None else _binary("add", total, term)
    return total


def _pieces(source, radix: int, groups: int, span: int, parts_first: bool) -> list[tuple[int, int, object]]:
    """(k, part, piece): the stage input's k-th of `radix` blocks along its axis, each part as
    [lead, groups, span, trail]. `source` is [lead, n, 2, trail] planes ([lead, 2, n, trail] if
    `parts_first`: runs of whole rows), or a real [lead, n, trail] tensor (its one part)."""
    dims = shape(source)
    lead, trail = dims[0], dims[-1]
    parts, at = (1 if len(dims) == 3 else 2), (1 if parts_first else 4)  # the parts' axis among the blocks'
    blocks = [lead, radix, groups, span, trail]
    blocks.insert(at, parts)
    blocks = reshape(source, blocks)
    pieces = []
    for k in range(radix):
        for p in range(parts):
            starts, limits = [0, k, 0, 0, 0], [lead, k + 1, groups, span, trail]
            starts.insert(at, p)
            limits.insert(at, p + 1)
            pieces.append((k, p, reshape(strided_slice(blocks, starts, limits, [1] * 6), [lead, groups, span, trail])))
    return pieces


def _stage(source, radix: int, span: int, sign: int, scale: float, parts_first: bool = False):
    """One radix-`radix` Stockham stage over `source` (see _pieces) whose transforms of length `span` along
    its rows are done: [lead, n, 2, trail] planes with transforms of span * radix done."""
    lead, n, trail = shape(source)[0], shape(source)[2 if parts_first else 1], shape(source)[-1]
    groups = n // (radix * span)
    table = _stage_table(radix, span, sign) * scale
    pieces = _pieces(source, radix, groups, span, parts_first)
    out = [lead, groups, radix, span, 2, trail]
    mixed = _mix([piece for _, _, piece in pieces], [table[:, k, :, :, p] for k, p, _ in pieces], out,
                 [0, 1, 3, 5], [2, 3, 4])
    return reshape(mixed, [lead, n, 2, trail])


def _stages(source, parts_first: bool, sign: int, scale: float):
    """The transforms along the rows of a stage's source (see _pieces), scaled: [lead, n, 2, trail] planes."""
    length, span = shape(source)[2 if parts_first else 1], 1
    radices = _radices(length)
    for i, radix in enumerate(radices):
        source = _stage(source, radix, span, sign, scale if i == len(radices) - 1 else 1.0, parts_first and i == 0)
        span *= radix
    return source


def _twiddle_table(plan: list[fft_kernels.Stage], sign: int) -> np.ndarray:
    """The twiddle factors of the stages' kernel, laid out as fft_kernels.stages says."""
    parts = [np.zeros(0)]
    for radix, span, offset in plan:
        if offset is not None:
            cos, sin = _unit(np.arange(span)[:, None] * np.arange(1, radix)[None, :], radix * span)
            parts.append(np.stack([cos, sign * sin], -1).reshape(-1))
    return np.concatenate(parts)


def _four_step_twiddles(n: int, run: int, length: int, sign: int) -> np.ndarray:
    """w^(k t) for k < n, t < run, w = exp(sign 2 pi i / length), as [n, 2 (cos, sin), run]."""
    cos, sin = _unit(np.arange(n)[:, None] * np.arange(run)[None, :], length)
    return np.stack([cos, sign * sin], 1).reshape(-1)


def _table(parts: list[np.ndarray]):
    """A kernel's table of `parts`, one zero where they are empty (a table cannot be)."""
    table = np.concatenate(parts)
    return table if len(table) else np.zeros(1)


def _f32(x) -> bool:
    """Whether x (a tensor, or planes) holds f32 values or parts."""
    return str(_real_type(x.values if isinstance(x, _Planes) else x)) == "f32"


def _kernel_rows(x, lead: int, rows: int, trail: int) -> tuple[object, str]:
    """(source, its fft_kernels layout) of x as `lead` x `rows` x `trail` (as _rows): a complex tensor's or
    pairs' bytes as pairs (the kernel takes their parts apart), real x as it is, planes over whole rows
    with their parts first, other planes regrouped."""
    if not isinstance(x, _Planes) and not isinstance(element(x), ir.ComplexType):
        return reshape(x, [lead, rows, trail]), "real"
    if not isinstance(x, _Planes) or x.inner == 1:
        return reshape(_planes(x).values, [lead, rows, trail, 2]), "pairs"
    source, parts_first = _rows(x, lead, rows, trail)
    return source, "parts_first" if parts_first else "planes"


def _kernel_stages(kernels: KernelCalls, source, layout: str, sign: int, scale: float, twiddled: bool = False,
                   result: str = "planes"):
    """_stages as one llvm-cpu dispatch of butterflies (fft_kernels) for an f32 source in `layout` (see
    _kernel_rows); `twiddled`: each result (k, t) also times w^(k t), w = exp(sign 2 pi i / (n trail)) (the
    four-step method's twiddles); `result`: the layout of the result (fft_kernels.RESULTS: [lead, n, 2,
    trail], [lead, 2, n, trail] or [lead, n, trail, 2]). A run that no vector of 8 or more divides is taken
    in whole vectors of the native width, read from the longer rows it was sliced from where it was
    (_widened), else through masks at the rows' ends, and written through masks."""
    dims = shape(source)
    lead = dims[0]
    n, trail = (dims[d] for d in {"planes": (1, 3), "parts_first": (2, 3), "pairs": (1, 2), "real": (1, 2)}[layout])
    width, run = fft_kernels.vector_width(trail, kernels.lanes)
    if layout == "pairs":
        source = reshape(source, [lead, n, 2 * trail])
    elif run != trail:
        source = _widened(source, run) or source
    rows = shape(source)[-1] // (2 if layout == "pairs" else 1)
    radices = _radices(n)
    table = _table([_twiddle_table(fft_kernels.stages(radices), sign)]
                   + ([_four_step_twiddles(n, run, n * trail, sign)] if twiddled else []))
    kernel = fft_kernels.Kernel(lead, n, rows, trail, run, width, radices, sign, scale, layout, len(table), twiddled,
                                result)
    shapes = {"planes": [lead, n, 2, trail], "parts_first": [lead, 2, n, trail], "pairs": [lead, n, trail, 2]}
    scratch = [tensor([lead, n, 2, run], element(source))] * kernel.scratch_results()
    symbol = kernel.symbol()
    results = kernels.call(symbol, lambda: fft_kernels.stages_executable(symbol, kernel),
                           [source, _matrix(table, element(source))], [tensor(shapes[result], element(source))] + scratch)
    return results[0]


def _widened(source, run: int):
    """Where `source` is a reshape of the leading `trail` positions of longer rows (at least `run`) and
    keeps its last dim (an RFFT's leading terms, read by the next axis), those rows reshaped alike; else
    None. The kernel reads them in place of a copy of the slice."""
    reshaped = source.owner if isinstance(source, ir.OpResult) else None
    if reshaped is None or reshaped.name != "stablehlo.reshape":
        return None
    sliced = reshaped.operands[0].owner if isinstance(reshaped.operands[0], ir.OpResult) else None
    if sliced is None or sliced.name != "stablehlo.slice":
        return None
    rows = shape(sliced.operands[0])
    cut = shape(sliced.results[0])
    if (i64s(sliced, "start_indices", []) != [0] * len(rows) or set(i64s(sliced, "strides", [])) != {1}
            or cut[:-1] != rows[:-1] or rows[-1] < run or shape(source)[-1] != cut[-1]):
        return None
    return reshape(sliced.operands[0], shape(source)[:-1] + [rows[-1]])


def _twiddled_transpose(planes, sign: int):
    """[lead, n1, 2, n2] column transforms times w^(k1 n2), w = exp(sign 2 pi i / (n1 n2)), as
    [lead, n2, 2, n1] planes: the four-step method's middle step."""
    lead, n1, _, n2 = shape(planes)
    cos, sin = _unit(np.arange(n1)[:, None] * np.arange(n2)[None, :], n1 * n2)
    table = np.moveaxis(_parts_matrix(cos, sign * sin), 1, 3)  # [n1, 2 out, 2 in, n2]
    mixed = _mix([_part(planes, p, 2) for p in range(2)], [table[:, :, p, :] for p in range(2)], [lead, n1, 2, n2],
                 [0, 1, 3], [1, 2, 3])
    return transpose(mixed, [0, 3, 2, 1])


def _bitcast(value, result_type):
    """flow.tensor.bitcast: the same bytes as another type (complex<f32> <-> f32 pairs); a reshape where the
    element types agree."""
    if element(value) == ir.RankedTensorType(result_type).element_type:
        return reshape(value, ir.RankedTensorType(result_type).shape)
    return create("flow.tensor.bitcast", [result_type], [value],
                  operandSegmentSizes=ir.DenseI32ArrayAttr.get([1, 0, 0]))[0]


def _part(values, p: int, axis: int):
    """The real (p 0) or imaginary (p 1) part of planes or pairs whose parts run along `axis`, without it."""
    dims = shape(values)
    starts, limits = [0] * len(dims), list(dims)
    starts[axis], limits[axis] = p, p + 1
    return reshape(strided_slice(values, starts, limits, [1] * len(dims)), dims[:axis] + dims[axis + 1:])


class _Planes(NamedTuple):
    """A complex tensor of `dims` as planes: `values` holds the elements of [outer, 2, inner] (in any shape),
    the real and then the imaginary parts of each run of `inner` consecutive elements. With `inner` 1 they
    are the complex tensor's bytes (pairs of reals); a stage along an axis takes runs of the elements after
    it. Transforms along several axes pass planes from one to the next, regrouped (one transpose, or none)
    rather than taken back to pairs."""
    values: ir.Value
    dims: list[int]
    inner: int


def _planes(x) -> _Planes:
    """A complex tensor as planes of its bytes (pairs of reals); planes as they are."""
    if isinstance(x, _Planes):
        return x
    return _Planes(_bitcast(x, tensor(shape(x) + [2], _real_type(x))), shape(x), 1)


def _regroup(planes: _Planes, inner: int) -> _Planes:
    """The same tensor as planes in runs of `inner`: one transpose where either run length divides the
    other, else two through their common divisor."""
    runs = planes.inner
    if runs == inner:
        return planes
    count = int(np.prod(planes.dims))
    if runs % inner == 0:  # each run splits into runs / inner: [outer, 2, runs / inner, inner] -> [.., 2, inner]
        split = [count // runs, 2, runs // inner, inner]
    elif inner % runs == 0:  # inner / runs runs join: [outer, inner / runs, 2, runs] -> [outer, 2, ..]
        split = [count // inner, inner // runs, 2, runs]
    else:
        return _regroup(_regroup(planes, int(np.gcd(runs, inner))), inner)
    kept = 3 if split[-1] == 1 else 4  # pairs have no last dim to keep in place
    return _Planes(transpose(reshape(planes.values, split[:kept]), [0, 2, 1, 3][:kept]), planes.dims, inner)


def _runs(planes: _Planes):
    """The values of planes as [outer, 2, inner]."""
    return reshape(planes.values, [int(np.prod(planes.dims)) // planes.inner, 2, planes.inner])


def _interleaved(planes: _Planes, words: bool):
    """A tensor whose bytes are the pairs of reals of the tensor planes hold. With `words`, f32 pairs are
    built as i64 words (the real part's bits in the low half): IREE's CPU code transposes parts into pairs a
    lane at a time where runs are not whole vectors (c64[16384,33] 1.33 ms against 0.52 as words; runs of 8
    to 256 the same)."""
    real = element(planes.values)
    if not words or planes.inner == 1 or ir.FloatType(real).width != 32:
        return _regroup(planes, 1).values
    runs = _runs(planes)
    bits = [convert(one("stablehlo.bitcast_convert", tensor(shape(runs)[::2], ir.IntegerType.get_signless(32)),
                        _part(runs, p, 1)), ir.IntegerType.get_signless(64)) for p in range(2)]
    low = _binary("and", bits[0], splat(0xFFFFFFFF, bits[0].type))  # the real part's bits, not sign-extended
    return _binary("or", low, _binary("shift_left", bits[1], splat(32, bits[1].type)))


def _as_complex(x, words: bool = False):
    """Planes as their complex tensor (with `words`, see _interleaved); any tensor as it is."""
    if not isinstance(x, _Planes):
        return x
    return _bitcast(_interleaved(x, words), tensor(x.dims, ir.ComplexType.get(element(x.values))))


def _real_part(planes: _Planes):
    """The real part of the tensor planes hold."""
    return reshape(_part(_runs(planes), 0, 1), planes.dims)


def _dims(x) -> list[int]:
    """The dimensions of a tensor, or of the tensor planes hold."""
    return x.dims if isinstance(x, _Planes) else shape(x)


def _rows(x, lead: int, rows: int, trail: int) -> tuple[object, bool]:
    """A stage's source and whether its parts come first (see _pieces): complex x or planes as
    [lead, rows, 2, trail] planes, or [lead, 2, rows, trail] where planes run over whole rows already; real
    x as [lead, rows, trail], its one part."""
    if not isinstance(x, _Planes) and not isinstance(element(x), ir.ComplexType):
        return reshape(x, [lead, rows, trail]), False
    if isinstance(x, _Planes) and x.inner == rows * trail:
        return reshape(x.values, [lead, 2, rows, trail]), True
    return reshape(_regroup(_planes(x), trail).values, [lead, rows, 2, trail]), False


def _i64(value: int):
    """An i64 attribute (a concatenate's dimension)."""
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)


def _staged_axis(x, dim: int, inverse: bool, kernels=None, pairs: bool = False, kept: int = 0) -> _Planes:
    """The DFT (inverse: scaled by 1/length) along `dim` of x (complex, planes, or real), as stages
    (with `kernels`, see _kernel_stages; `pairs`: as pairs where the kernels write them, for a result);
    `kept`: the leading terms needed of a last dim (0: all), where the fused kernel leaves others out, the
    planes hold only those up to the next multiple of n1."""
    dims = _dims(x)
    lead, length, trail = int(np.prod(dims[:dim])), dims[dim], _trail(x, dim)
    sign, scale = (1, 1.0 / length) if inverse else (-1, 1.0)
    if trail >= _VECTOR and kernels is not None and _f32(x):
        result = "pairs" if pairs else "planes"
        values = _kernel_stages(kernels, *_kernel_rows(x, lead, length, trail), sign, scale, result=result)
        return _Planes(values, dims, 1 if pairs else trail)
    if trail >= _VECTOR:
        return _Planes(_stages(*_rows(x, lead, length, trail), sign, scale), dims, trail)
    if trail > 1:  # the axis goes last, and comes back, as complex values
        perm = [d for d in range(len(dims)) if d != dim] + [dim]
        moved = _staged_axis(transpose(_as_complex(x), perm), len(dims) - 1, inverse, kernels)
        return _planes(transpose(_as_complex(moved), list(np.argsort(perm))))
    return _four_step(x, dims, sign, scale, kernels, pairs, kept)


def _leading_terms(planes: _Planes, count: int) -> _Planes:
    """The first `count` terms along the last dim of the tensor planes hold."""
    runs = _runs(_regroup(planes, planes.dims[-1]))
    return _Planes(slice_to(runs, shape(runs)[:2] + [count]), planes.dims[:-1] + [count], count)


def _four_step(x, dims: list[int], sign: int, scale: float, kernels=None, pairs: bool = False, kept: int = 0
               ) -> _Planes:
    """The transforms along the last of `dims` (length = n1 n2 contiguous elements of x: complex, planes,
    or real, read as [lead, n1, n2]): the columns' stages, twiddles and a transpose, then the rows' stages;
    planes of the term k = k1 + n1 k2 at (k2, k1) of [lead, k2, 2, k1] (runs of n1), or through kernels
    (see _kernel_stages) at (k2, k1) of [lead, 2, k2, k1] (runs of n1 n2, whole rows: the kernel writes
    them so at no cost, where a transpose after it would be a pass over the data) or of pairs where
    `pairs` (runs of 1), the twiddles multiplied by the columns' kernel and the transpose a plain one. With
    `kept` (see _staged_axis), the fused kernel writes the rows k2 < kept / n1 only."""
    lead, length = int(np.prod(dims[:-1])), dims[-1]
    n1, n2 = _split(length)
    if kernels is None or not _f32(x):
        columns = _stages(*_rows(x, lead, n1, n2), sign, 1.0)
        return _Planes(_stages(_twiddled_transpose(columns, sign), False, sign, scale), dims, n1)
    if fft_kernels.fused_width(n1, n2, kernels.lanes):
        kept_rows = 0 if pairs or not kept else -(-kept // n1)
        values = _fused_four_step(kernels, x, lead, n1, n2, sign, scale, pairs, kept_rows)
        terms = kept_rows * n1 if kept_rows else length
        return _Planes(values, dims[:-1] + [terms], 1 if pairs else terms)
    columns = _kernel_stages(kernels, *_kernel_rows(x, lead, n1, n2), sign, 1.0, twiddled=True)
    result = "pairs" if pairs else "parts_first"
    rows = _kernel_stages(kernels, transpose(columns, [0, 3, 2, 1]), "planes", sign, scale, result=result)
    return _Planes(rows, dims, 1 if pairs else n1 * n2)


def _fused_four_step(kernels: KernelCalls, x, lead: int, n1: int, n2: int, sign: int, scale: float, pairs: bool,
                     kept_rows: int = 0):
    """_four_step's kernels and transpose as one kernel (fft_kernels.fused_four_step_executable): pairs, or
    [lead, 2, k2, k1] planes (the `kept_rows` leading rows k2, or all where 0)."""
    source, layout = _kernel_rows(x, lead, n1, n2)
    if layout == "pairs":
        source = reshape(source, [lead, n1, 2 * n2])
    width = fft_kernels.fused_width(n1, n2, kernels.lanes)
    first, second = fft_kernels.stages(_radices(n1)), fft_kernels.stages(_radices(n2))
    twiddles = [_twiddle_table(first, sign), _four_step_twiddles(n1, n2, n1 * n2, sign)]
    table = _table(twiddles + [_twiddle_table(second, sign)])
    middle = sum(len(t) for t in twiddles)
    result = "pairs" if pairs else "parts_first"
    columns = fft_kernels.Kernel(lead, n1, n2, n2, n2, width, _radices(n1), sign, 1.0, layout, middle, True, "planes")
    rows = fft_kernels.Kernel(lead, n2, n1, n1, fft_kernels.padded(n1, width), width, _radices(n2), sign, scale,
                              "planes", len(table), False, result, kept_rows)
    symbol = fft_kernels.fused_symbol(columns, rows)
    shape_out = [lead, n2, n1, 2] if pairs else [lead, 2, rows.result_rows(), n1]
    (out,) = kernels.call(symbol, lambda: fft_kernels.fused_four_step_executable(symbol, columns, rows),
                          [source, _matrix(table, element(source))], [tensor(shape_out, element(source))])
    return out


def _rows_transform(x: _Planes, sign: int, scale: float, kernels=None, pairs: bool = False) -> _Planes:
    """The transforms of the rows of the [lead, length] complex tensor planes hold (pairs, or runs):
    planes (`pairs`: see _four_step)."""
    return _four_step(x, x.dims, sign, scale, kernels, pairs)


# A real transform of even length N is one of N/2 complex values, z[m] = x[2m] + i x[2m+1], and back: the
# spectra of the even and odd elements, E and O, are the halves of Z[k] and conj(Z[N/2 - k]) that are
# symmetric and antisymmetric, X[k] = E[k] + w^k O[k] with w = exp(-2 pi i / N). Half the stages, and the
# real elements are already pairs.
def _with_mirrored(parts: list, direct: np.ndarray, crossed: np.ndarray):
    """direct[k] v[k] + crossed[k] conj(v[K - 1 - k]) for v given by its parts ([lead, K] each; direct,
    crossed: [K, 2 out, 2 in] parts matrices), as [lead, K, 2] pairs. Pairs, not planes in runs of K: those
    read the mirrored terms backwards along a vector, a lane at a time (rfft2 of f32[4,64,128] 0.23 -> 0.29
    ms), and failed to compile in some shapes."""
    lead, count = shape(parts[0])
    crossed = crossed * np.array([1.0, -1.0])  # conj: the imaginary part taken negated
    mirrored = [one("stablehlo.reverse", part.type, part, dimensions=i64_array([1])) for part in parts]
    tables = [matrix[:, :, p] for matrix in (direct, crossed) for p in range(2)]
    return _mix(parts + mirrored, tables, [lead, count, 2], [0, 1], [1, 2])


def _half_matrices(length: int, count: int, sign: int) -> tuple[np.ndarray, np.ndarray]:
    """(1 - i w^k) / 2 and (1 + i w^k) / 2 for k < count, w = exp(sign 2 pi i / length), as parts matrices."""
    cos, sin = _unit(np.arange(count), length)
    sin = sign * sin  # w^k = cos + i sin; i w^k = -sin + i cos
    return _parts_matrix((1 + sin) / 2, -cos / 2), _parts_matrix((1 - sin) / 2, cos / 2)


def _real_forward(x, length: int, kernels=None) -> _Planes:
    """RFFT of real x along its last dim (even `length`): the first length/2 + 1 terms, as pairs."""
    dims = shape(x)
    lead, half = int(np.prod(dims[:-1])), length // 2
    z = _rows_transform(_Planes(x, [lead, half], 1), -1, 1.0, kernels)  # Z[k]
    if z.inner == half and _halves_width(kernels, half):  # whole rows, from the kernels
        pairs = _kernel_halves(kernels, reshape(z.values, [lead, 2, half]), half, False, False)
        return _Planes(pairs, dims[:-1] + [half + 1], 1)
    spectrum = reshape(_regroup(z, 1).values, [lead, half, 2])
    wrapped = one("stablehlo.concatenate", tensor([lead, half + 1, 2], element(x)), spectrum,
                  strided_slice(spectrum, [0, 0, 0], [lead, 1, 2], [1] * 3), dimension=_i64(1))  # Z[k mod half]
    pairs = _with_mirrored([_part(wrapped, p, 2) for p in range(2)], *_half_matrices(length, half + 1, -1))
    return _Planes(pairs, dims[:-1] + [half + 1], 1)


def _real_inverse(x, length: int, words: bool, kernels=None):
    """IRFFT along the last dim (even `length`) of its length/2 + 1 leading terms (complex x or planes):
    real (with `words`, see _interleaved). The imaginary parts of the first and last terms are left out, as
    conjugate symmetry has them zero."""
    dims = _dims(x)
    lead, half = int(np.prod(dims[:-1])), length // 2
    runs = isinstance(x, _Planes) and x.inner == half + 1
    if _halves_width(kernels, half) and _f32(x):
        source = reshape(_runs(x), [lead, 2, half + 1]) if runs else reshape(_regroup(_planes(x), 1).values,
                                                                            [lead, 2 * (half + 1)])
        spectrum = _Planes(_kernel_halves(kernels, source, half, True, runs), [lead, half], half)
    else:
        if runs:
            values, axis = _runs(x), 1
        else:
            values, axis = reshape(_regroup(_planes(x), 1).values, [lead, half + 1, 2]), 2
        crossed, direct = _half_matrices(length, half + 1, 1)  # Z = (1 + i w^-k)/2 X[k] + (1 - i w^-k)/2 conj(X[half - k])
        direct[0, :, 1] = crossed[0, :, 1] = 0.0  # Im X[0], Im X[half]
        # Z[k] for k <= half, the spectrum of x's pairs and Z[half] (Z[0] again), left out after: slices of the
        # terms before it had IREE copy each of them
        pairs = slice_to(_with_mirrored([_part(values, p, axis) for p in range(2)], direct, crossed), [lead, half, 2])
        spectrum = _Planes(pairs, [lead, half], 1)
    planes = _rows_transform(spectrum, 1, 1.0 / half, kernels, pairs=True)
    return _bitcast(_interleaved(planes, words), tensor(dims[:-1] + [length], element(planes.values)))


def _halved(x, dim: int, length: int, kernels: KernelCalls | None) -> bool:
    """Whether the IRFFT of `length` along x's last dim `dim` runs as a complex transform of half the
    length: where stages take length / 2, or, shorter (from _STAGED_FROM), where the fused four-step kernel
    and the halves kernel do. An IRFFT of 64 otherwise completed the spectrum by conjugate symmetry
    (irfft2_channels on an AVX2 Zen 3: 5.7 -> 2.0 ms, four of its seven dispatches copies, a transpose and
    the conjugates); an RFFT of 64 keeps its fused kernel of 64, which writes the leading terms only (the
    same time)."""
    if length % 2 or length < _STAGED_FROM:
        return False
    half = length // 2
    if _staged_along(x, dim, half):
        return True
    split = _split(half) if kernels is not None and _f32(x) and _halves_width(kernels, half) else None
    return split is not None and fft_kernels.fused_width(*split, kernels.lanes) is not None


def _halves_width(kernels: KernelCalls | None, half: int) -> int | None:
    """The vector width of the halves kernel for N/2 = `half` terms a row, where kernels are given and a
    vector of at least 8 (or the native width) divides the row; else None."""
    if kernels is None:
        return None
    width = min(kernels.lanes, half & -half)
    return width if width >= min(8, kernels.lanes) else None


def _kernel_halves(kernels: KernelCalls, source, half: int, inverse: bool, planes: bool):
    """fft_kernels.Halves's result for `source` (its layouts there) of rows of N/2 = `half` terms, with t / 2
    computed here."""
    lead = shape(source)[0]
    cos, sin = _unit(np.arange(half), 2 * half)
    table = np.stack([-sin, cos if inverse else -cos]) / 2
    kernel = fft_kernels.Halves(lead, half, _halves_width(kernels, half), inverse, planes)
    result = tensor([lead, 2, half] if inverse else [lead, 2 * (half + 1)], element(source))
    symbol = kernel.symbol()
    (out,) = kernels.call(symbol, lambda: fft_kernels.halves_executable(symbol, kernel),
                          [source, _matrix(table, element(source))], [result])
    return out


def _hermitian_completion(x, length: int):
    """The whole spectrum of `length` along the last dim from its length // 2 + 1 leading terms: the others
    are the conjugates of terms 1, 2, ... in reverse."""
    dims = shape(x)
    rank = len(dims)
    mirrored = strided_slice(x, [0] * (rank - 1) + [1], dims[:-1] + [length - length // 2], [1] * rank)
    re, im = complex_parts(one("stablehlo.reverse", mirrored.type, mirrored, dimensions=i64_array([rank - 1])))
    conjugates = _join(re, one("stablehlo.negate", im.type, im), mirrored.type)
    return one("stablehlo.concatenate", tensor(dims[:-1] + [length], element(x)), x, conjugates,
               dimension=_i64(rank - 1))


def _trail(x, dim: int) -> int:
    """The elements after `dim` in each of x's rows along it (x a tensor, or planes)."""
    return int(np.prod(_dims(x)[dim + 1:]))


def _complex_axis(x, dim: int, length: int, inverse: bool, kernels=None, pairs: bool = False):
    """The DFT (inverse: scaled) of complex x (or planes) along `dim`: planes from stages where they apply
    (`pairs`: see _staged_axis), else a complex tensor from a DFT matrix product."""
    if _staged_along(x, dim, length):
        return _staged_axis(x, dim, inverse, kernels, pairs)
    x = _as_complex(x)
    return _join(*_complex_dft(*complex_parts(x), dim, length, inverse), x.type)


def _untransposed(x, dims: list[tuple[int, int]]):
    """(source, dims, perm): where x is a transpose (JAX's fft along other axes moves them last), its operand,
    the (dim, length) there that x's transformed dims come from, and the transpose's permutation; else x,
    dims and None. Complex transposes take IREE one element at a time (c64[1024,64] 0.27 ms of 0.74), and
    stages run along any axis."""
    owner = x.owner if isinstance(x, ir.OpResult) else None
    if owner is None or owner.name != "stablehlo.transpose":
        return x, dims, None
    perm = i64s(owner, "permutation", [])
    return owner.operands[0], [(perm[dim], n) for dim, n in dims], perm


def _transposed_as_words(op, result, words: bool):
    """`result`, the fft's, or where its one user is a transpose of complex<f32> values (JAX's after an
    fft along other axes), the same values with that transpose done on their i64 words and undone after,
    so that the user's transpose cancels: IREE moves complex elements one at a time (RFFT along axis 0 of
    f32[1024,64]: the transpose 0.076 of 0.32 ms)."""
    users = [use.owner for use in op.results[0].uses]
    kind = element(result)
    if not (words and len(users) == 1 and users[0].name == "stablehlo.transpose" and isinstance(kind, ir.ComplexType)
            and ir.FloatType(kind.element_type).width == 32):
        return result
    perm = i64s(users[0], "permutation", [])
    moved = transpose(_bitcast(result, tensor(shape(result), ir.IntegerType.get_signless(64))), perm)
    return transpose(_bitcast(moved, tensor(shape(moved), kind)), [int(d) for d in np.argsort(perm)])


def expand(op, words: bool = True, kernels: KernelCalls | None = None):
    """The fft's result computed by stages or DFT matrix products, an axis at a time; `words`: see
    _interleaved; `kernels`: the calls of llvm-cpu kernels the stages run as, where given."""
    x = op.operands[0]
    lengths, kind = i64s(op, "fft_length", []), enum_name(op, "fft_type")
    rank = len(shape(x))
    dims = list(zip(range(rank - len(lengths), rank), lengths))  # (dim, length) per transformed dim
    last, length = dims[-1]
    if kind in ("FFT", "IFFT"):
        x, dims, perm = _untransposed(x, dims)
        for i, (dim, n) in enumerate(dims):
            x = _complex_axis(x, dim, n, kind == "IFFT", kernels, pairs=i == len(dims) - 1)
        x = _as_complex(x, words)
        return _transposed_as_words(op, x, words) if perm is None else transpose(x, perm)
    if kind == "RFFT":
        if length % 2 == 0 and _staged_along(x, last, length // 2):
            x = _real_forward(x, length, kernels)
        elif _staged_along(x, last, length):
            count = length // 2 + 1  # the terms kept: those the next axis's kernel reads (whole vectors)
            kept = fft_kernels.padded(count, kernels.lanes) if kernels is not None else 0
            x = _leading_terms(_staged_axis(x, last, False, kernels, kept=kept), count)
        else:
            re, im = _real_dft(x, length)
            x = _join(re, im, tensor(shape(re), ir.ComplexType.get(element(re))))
        for i, (dim, n) in enumerate(dims[:-1]):
            x = _complex_axis(x, dim, n, False, kernels, pairs=i == len(dims) - 2)
        return _transposed_as_words(op, _as_complex(x, words), words)
    for dim, n in dims[:-1]:
        x = _complex_axis(x, dim, n, True, kernels)
    if _halved(x, last, length, kernels):
        return _real_inverse(x, length, words, kernels)
    x = _as_complex(x)
    if _staged_along(x, last, length):
        return _real_part(_staged_axis(_hermitian_completion(x, length), last, True, kernels))
    return _hermitian_inverse(*complex_parts(x), length)


def _lengths_fit(op) -> bool:
    """True where fft_length names the operand's trailing dims (an IRFFT's last one holding length/2 + 1
    terms), as the spec requires; other ffts are left for IREE to reject at their location."""
    lengths, dims = i64s(op, "fft_length", []), shape(op.operands[0])
    if not 1 <= len(lengths) <= len(dims):
        return False
    expected = list(lengths)
    if enum_name(op, "fft_type") == "IRFFT":
        expected[-1] = lengths[-1] // 2 + 1
    return all(d == e or d == ir.ShapedType.get_dynamic_size() for d, e in zip(dims[-len(lengths):], expected))


def iree_lowers(op) -> bool:
    """True for the forms IREE compiles: one f32 dimension of power-of-two length, a static shape."""
    lengths = i64s(op, "fft_length", [])
    power_of_two = len(lengths) == 1 and lengths[0] > 0 and lengths[0] & (lengths[0] - 1) == 0
    static = ir.RankedTensorType(op.operands[0].type).has_static_shape
    return power_of_two and static and ir.FloatType(_real_type(op.operands[0])).width == 32


def _inline_called_ffts(module) -> None:
    """Inlines the module's calls where an fft transforms a function's argument (JAX puts each fft in a
    function of its own), so that a transpose before the call reaches the fft (see _untransposed); IREE's
    input phase inlines them anyway."""
    if any(isinstance(op.operands[0], ir.BlockArgument) for op in ir.ops(module) if op.name == "stablehlo.fft"):
        inline_calls(module)


def _stages_apply(op) -> bool:
    """True where expand takes stages for the fft's last axis (IREE's forms have that one axis only)."""
    x, length = op.operands[0], i64s(op, "fft_length", [0])[-1]
    return _staged_along(x, len(shape(x)) - 1, length)


def _expand_all(module, matches, words: bool, cpu_kernels: bool) -> None:
    """Expands each fft of the module that `matches` (its calls inlined first where one transforms an
    argument), with the stages' kernels where asked for and every device target is llvm-cpu."""
    _inline_called_ffts(module)
    lanes = cpu_lanes(module, "f32") if cpu_kernels else None
    kernels = None if lanes is None else KernelCalls(lanes)
    for op in [o for o in ir.ops(module) if o.name == "stablehlo.fft" and matches(o)]:
        replace(op, lambda fft: expand(fft, words, kernels))
    if kernels is not None:
        kernels.define(module)


@register_pass
class LegalizeFft(Pass):
    """Rewrites stablehlo.fft forms IREE rejects (several dims, lengths not a power of two, f64) as stages or DFT matmuls."""

    name = "oxla-legalize-fft"
    i64_words: bool = dataclasses.field(default=True, metadata={
        "help": "write f32 results as i64 words of their parts (false for devices without 64-bit integers)"})
    iree_forms: bool = dataclasses.field(default=False, metadata={
        "help": "rewrite the forms IREE lowers itself too (true where its lowering is wrong: Vulkan)"})

    cpu_kernels: bool = dataclasses.field(default=True, metadata={
        "help": "run each axis's stages as one dispatch where every device target is llvm-cpu"})

    def matches(self, op) -> bool:
        return _lengths_fit(op) and (self.iree_forms or not iree_lowers(op))

    def run(self, module) -> None:
        _expand_all(module, self.matches, self.i64_words, self.cpu_kernels)


@register_pass
class StagedFft(Pass):
    """Runs the stablehlo.fft forms IREE lowers (one f32 axis, a power of two) as Stockham stages, not radix-2 passes."""

    name = "oxla-llvmcpu-staged-fft"

    cpu_kernels: bool = dataclasses.field(default=True, metadata={
        "help": "run each axis's stages as one dispatch (this pass runs on llvm-cpu targets only)"})

    def matches(self, op) -> bool:
        return _lengths_fit(op) and iree_lowers(op) and _stages_apply(op)

    def run(self, module) -> None:
        _expand_all(module, self.matches, True, self.cpu_kernels)
