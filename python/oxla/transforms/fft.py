"""stablehlo.fft as ops IREE compiles well: Stockham stages, or DFT matrix products.

- oxla-legalize-fft (every target): IREE lowers fft only for one f32
  dimension of power-of-two length and a static shape; other lengths,
  several dimensions, f64 and run-time sizes fail to compile. Those are
  computed here, an axis at a time (run-time sizes by DFT matrices).
- oxla-llvmcpu-staged-fft: IREE's own lowering of the forms it takes runs a
  bit-reversal gather and a radix-2 pass per factor of two, element by
  element; where stages apply they run instead.

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
"""

from __future__ import annotations

import numpy as np

from oxla import ir
from oxla.dialects.elements import dtype_of
from oxla.transforms.registry import RewritePass, register_pass
from oxla.dialects.stablehlo_build import (broadcast, complex_parts, create, element, enum_name, i64_array, i64s, one, replace,
                                           reshape, shape, slice_to, strided_slice, tensor, transpose)


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
# into planes, and the result's planes transposed back and read as complex: IREE's code for complex
# elements takes them one at a time (stablehlo.real of c64[64,1024] 0.05-0.1 ms, the transpose of its
# pairs 0.035 ms on an AVX2 Zen 3).
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
    """_staged for x's axis `dim`: stages need a static shape (their reshapes and bitcasts take no sizes)."""
    return ir.RankedTensorType(x.type).has_static_shape and _staged(length, _trail(x, dim))


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


def _pieces(source, radix: int, groups: int, span: int) -> list[tuple[int, int, object]]:
    """(k, part, piece): the stage input's k-th of `radix` blocks along its axis, each part as
    [lead, groups, span, trail]. `source` is planes, or a real [lead, n, trail] tensor (its one part)."""
    dims = shape(source)
    lead, trail = dims[0], dims[-1]
    parts = dims[2] if len(dims) == 4 else 1
    blocks = reshape(source, [lead, radix, groups, span, parts, trail])
    pieces = []
    for k in range(radix):
        for p in range(parts):
            piece = strided_slice(blocks, [0, k, 0, 0, p, 0], [lead, k + 1, groups, span, p + 1, trail], [1] * 6)
            pieces.append((k, p, reshape(piece, [lead, groups, span, trail])))
    return pieces


def _stage(source, radix: int, span: int, sign: int, scale: float):
    """One radix-`radix` Stockham stage over `source` (see _pieces) whose transforms of length `span` along
    axis 1 are done: [lead, n, 2, trail] planes with transforms of span * radix done."""
    lead, n, trail = shape(source)[0], shape(source)[1], shape(source)[-1]
    groups = n // (radix * span)
    table = _stage_table(radix, span, sign) * scale
    pieces = _pieces(source, radix, groups, span)
    out = [lead, groups, radix, span, 2, trail]
    mixed = _mix([piece for _, _, piece in pieces], [table[:, k, :, :, p] for k, p, _ in pieces], out,
                 [0, 1, 3, 5], [2, 3, 4])
    return reshape(mixed, [lead, n, 2, trail])


def _stages(source, sign: int, scale: float):
    """The transforms along axis 1 of planes or of a [lead, n, trail] tensor (see _pieces), scaled: planes."""
    length, span = shape(source)[1], 1
    radices = _radices(length)
    for i, radix in enumerate(radices):
        source = _stage(source, radix, span, sign, scale if i == len(radices) - 1 else 1.0)
        span *= radix
    return source


def _twiddled_transpose(planes, sign: int):
    """[lead, n1, 2, n2] column transforms times w^(k1 n2), w = exp(sign 2 pi i / (n1 n2)), as
    [lead, n2, 2, n1] planes: the four-step method's middle step."""
    lead, n1, _, n2 = shape(planes)
    cos, sin = _unit(np.arange(n1)[:, None] * np.arange(n2)[None, :], n1 * n2)
    table = np.moveaxis(_parts_matrix(cos, sign * sin), 1, 3)  # [n1, 2 out, 2 in, n2]
    pieces = [reshape(strided_slice(planes, [0, 0, p, 0], [lead, n1, p + 1, n2], [1] * 4), [lead, n1, n2])
              for p in range(2)]
    mixed = _mix(pieces, [table[:, :, p, :] for p in range(2)], [lead, n1, 2, n2], [0, 1, 3], [1, 2, 3])
    return transpose(mixed, [0, 3, 2, 1])


def _bitcast(value, result_type):
    """flow.tensor.bitcast: the same bytes as another type (complex<f32> <-> f32 pairs)."""
    return create("flow.tensor.bitcast", [result_type], [value],
                  operandSegmentSizes=ir.DenseI32ArrayAttr.get([1, 0, 0]))[0]


def _pairs_to_planes(pairs, lead: int, rows: int, trail: int):
    """Pairs of reals ([..., 2], in rows of `trail`) as [lead, rows, 2, trail] planes."""
    return transpose(reshape(pairs, [lead, rows, trail, 2]), [0, 1, 3, 2])


def _planes_to_pairs(planes):
    """[lead, rows, 2, trail] planes as [lead, rows, trail, 2] pairs of reals."""
    return transpose(planes, [0, 1, 3, 2])


def _to_planes(x, lead: int, rows: int, trail: int):
    """A complex tensor as [lead, rows, 2, trail] planes (its bytes as pairs of reals, transposed); a real
    one as [lead, rows, trail], its one part."""
    if not isinstance(element(x), ir.ComplexType):
        return reshape(x, [lead, rows, trail])
    return _pairs_to_planes(_pairs(x), lead, rows, trail)


def _from_planes(planes, dims: list[int], complex_result: bool):
    """[lead, rows, 2, trail] planes as a tensor of `dims`: complex, or their real part."""
    lead, rows, _, trail = shape(planes)
    if complex_result:
        pairs = reshape(_planes_to_pairs(planes), dims + [2])
        return _bitcast(pairs, tensor(dims, ir.ComplexType.get(element(planes))))
    return reshape(strided_slice(planes, [0, 0, 0, 0], [lead, rows, 1, trail], [1] * 4), dims)


def _i64(value: int):
    """An i64 attribute (a concatenate's dimension)."""
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)


def _staged_axis(x, dim: int, inverse: bool, complex_result: bool = True):
    """The DFT (inverse: scaled by 1/length) of x (complex, or real) along `dim`, as stages."""
    dims = shape(x)
    lead, length, trail = int(np.prod(dims[:dim])), dims[dim], _trail(x, dim)
    sign, scale = (1, 1.0 / length) if inverse else (-1, 1.0)
    if trail >= _VECTOR:
        return _from_planes(_stages(_to_planes(x, lead, length, trail), sign, scale), dims, complex_result)
    if trail > 1:  # the axis goes last, and comes back
        perm = [d for d in range(len(dims)) if d != dim] + [dim]
        moved = _staged_axis(transpose(x, perm), len(dims) - 1, inverse, complex_result)
        return transpose(moved, list(np.argsort(perm)))
    n1, n2 = _split(length)
    return _from_planes(_four_step(_to_planes(x, lead, n1, n2), sign, scale), dims, complex_result)


def _pairs(x):
    """A complex tensor's bytes as pairs of reals: [..., 2]."""
    return _bitcast(x, tensor(shape(x) + [2], ir.ComplexType(element(x)).element_type))


def _four_step(source, sign: int, scale: float):
    """The transforms of length n1 n2 of a stage's source (see _pieces), [lead, n1, (2,) n2], read by rows:
    the columns' stages, twiddles and a transpose, then the rows' stages; [lead, k2, 2, k1] planes, the
    term k = k1 + n1 k2 at (k2, k1)."""
    columns = _stages(source, sign, 1.0)
    return _stages(_twiddled_transpose(columns, sign), sign, scale)


def _four_step_pairs(pairs, sign: int, scale: float):
    """The transforms along axis 1 of [lead, length, 2] pairs of reals: pairs."""
    lead, length, _ = shape(pairs)
    n1, n2 = _split(length)
    planes = _four_step(_pairs_to_planes(pairs, lead, n1, n2), sign, scale)
    return reshape(_planes_to_pairs(planes), [lead, length, 2])


# A real transform of even length N is one of N/2 complex values, z[m] = x[2m] + i x[2m+1], and back: the
# spectra of the even and odd elements, E and O, are the halves of Z[k] and conj(Z[N/2 - k]) that are
# symmetric and antisymmetric, X[k] = E[k] + w^k O[k] with w = exp(-2 pi i / N). Half the stages, and the
# real elements are already pairs.
def _with_mirrored(values, mirrored, direct: np.ndarray, crossed: np.ndarray):
    """direct[k] values[k] + crossed[k] conj(mirrored[k]) of [lead, K, 2] pairs (direct, crossed: [K, 2 out,
    2 in] parts matrices), as pairs."""
    lead, count, _ = shape(values)
    crossed = crossed * np.array([1.0, -1.0])  # conj: the imaginary part taken negated
    pieces, tables = [], []
    for source, matrix in ((values, direct), (mirrored, crossed)):
        for p in range(2):
            pieces.append(reshape(strided_slice(source, [0, 0, p], [lead, count, p + 1], [1] * 3), [lead, count]))
            tables.append(matrix[:, :, p])
    return _mix(pieces, tables, [lead, count, 2], [0, 1], [1, 2])


def _half_matrices(length: int, count: int, sign: int) -> tuple[np.ndarray, np.ndarray]:
    """(1 - i w^k) / 2 and (1 + i w^k) / 2 for k < count, w = exp(sign 2 pi i / length), as parts matrices."""
    cos, sin = _unit(np.arange(count), length)
    sin = sign * sin  # w^k = cos + i sin; i w^k = -sin + i cos
    return _parts_matrix((1 + sin) / 2, -cos / 2), _parts_matrix((1 - sin) / 2, cos / 2)


def _real_forward(x, length: int):
    """RFFT of real x along its last dim (even `length`): the first length/2 + 1 terms, complex."""
    dims = shape(x)
    lead, half = int(np.prod(dims[:-1])), length // 2
    spectrum = _four_step_pairs(reshape(x, [lead, half, 2]), -1, 1.0)  # Z[k], k < half
    wrapped = one("stablehlo.concatenate", tensor([lead, half + 1, 2], element(x)), spectrum,
                  strided_slice(spectrum, [0, 0, 0], [lead, 1, 2], [1] * 3), dimension=_i64(1))  # Z[k mod half]
    mirrored = one("stablehlo.reverse", wrapped.type, wrapped, dimensions=i64_array([1]))  # Z[(half - k) mod half]
    pairs = _with_mirrored(wrapped, mirrored, *_half_matrices(length, half + 1, -1))
    out = dims[:-1] + [half + 1]
    return _bitcast(reshape(pairs, out + [2]), tensor(out, ir.ComplexType.get(element(x))))


def _real_inverse(x, length: int):
    """IRFFT along the last dim (even `length`) of its length/2 + 1 leading terms, complex x: real. The
    imaginary parts of the first and last terms are left out, as conjugate symmetry has them zero."""
    dims = shape(x)
    lead, half = int(np.prod(dims[:-1])), length // 2
    pairs = reshape(_pairs(x), [lead, half + 1, 2])
    leading = strided_slice(pairs, [0, 0, 0], [lead, half, 2], [1] * 3)  # X[k], k < half
    trailing = strided_slice(pairs, [0, 1, 0], [lead, half + 1, 2], [1] * 3)
    mirrored = one("stablehlo.reverse", trailing.type, trailing, dimensions=i64_array([1]))  # X[half - k]
    crossed, direct = _half_matrices(length, half, 1)  # Z = (1 + i w^-k)/2 X[k] + (1 - i w^-k)/2 conj(X[half - k])
    direct[0, :, 1] = crossed[0, :, 1] = 0.0  # Im X[0], Im X[half]
    spectrum = _with_mirrored(leading, mirrored, direct, crossed)  # Z[k]: the spectrum of x's pairs
    return reshape(_four_step_pairs(spectrum, 1, 1.0 / half), dims[:-1] + [length])


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
    """The elements after `dim` in each of x's rows along it."""
    return int(np.prod(shape(x)[dim + 1:]))


def _complex_axis(x, dim: int, length: int, inverse: bool):
    """The DFT (inverse: scaled) of complex x along `dim`: stages where they apply, else a DFT matrix product."""
    if _staged_along(x, dim, length):
        return _staged_axis(x, dim, inverse)
    return _join(*_complex_dft(*complex_parts(x), dim, length, inverse), x.type)


def expand(op):
    """The fft's result computed by stages or DFT matrix products, an axis at a time."""
    x = op.operands[0]
    lengths, kind = i64s(op, "fft_length", []), enum_name(op, "fft_type")
    rank = len(shape(x))
    dims = list(zip(range(rank - len(lengths), rank), lengths))  # (dim, length) per transformed dim
    last, length = dims[-1]
    if kind in ("FFT", "IFFT"):
        for dim, n in dims:
            x = _complex_axis(x, dim, n, kind == "IFFT")
        return x
    if kind == "RFFT":
        if length % 2 == 0 and _staged_along(x, last, length // 2):
            x = _real_forward(x, length)
        elif _staged_along(x, last, length):
            x = slice_to(_staged_axis(x, last, False), shape(x)[:-1] + [length // 2 + 1])
        else:
            re, im = _real_dft(x, length)
            x = _join(re, im, tensor(shape(re), ir.ComplexType.get(element(re))))
        for dim, n in dims[:-1]:
            x = _complex_axis(x, dim, n, False)
        return x
    for dim, n in dims[:-1]:
        x = _complex_axis(x, dim, n, True)
    if length % 2 == 0 and _staged_along(x, last, length // 2):
        return _real_inverse(x, length)
    if _staged_along(x, last, length):
        return _staged_axis(_hermitian_completion(x, length), last, True, complex_result=False)
    return _hermitian_inverse(*complex_parts(x), length)


def iree_lowers(op) -> bool:
    """True for the forms IREE compiles: one f32 dimension of power-of-two length, a static shape."""
    lengths = i64s(op, "fft_length", [])
    power_of_two = len(lengths) == 1 and lengths[0] > 0 and lengths[0] & (lengths[0] - 1) == 0
    static = ir.RankedTensorType(op.operands[0].type).has_static_shape
    return power_of_two and static and ir.FloatType(_real_type(op.operands[0])).width == 32


def _stages_apply(op) -> bool:
    """True where expand takes stages for the fft's last axis (IREE's forms have that one axis only)."""
    x, length = op.operands[0], i64s(op, "fft_length", [0])[-1]
    return _staged_along(x, len(shape(x)) - 1, length)


@register_pass
class LegalizeFft(RewritePass):
    """Rewrites stablehlo.fft forms IREE rejects (several dims, lengths not a power of two, f64) as stages or DFT matmuls."""

    name = "oxla-legalize-fft"
    roots = ("stablehlo.fft",)

    def matches(self, op) -> bool:
        return not iree_lowers(op)

    def rewrite(self, op) -> None:
        replace(op, expand)


@register_pass
class StagedFft(RewritePass):
    """Runs the stablehlo.fft forms IREE lowers (one f32 axis, a power of two) as Stockham stages, not radix-2 passes."""

    name = "oxla-llvmcpu-staged-fft"
    roots = ("stablehlo.fft",)

    def matches(self, op) -> bool:
        return iree_lowers(op) and _stages_apply(op)

    def rewrite(self, op) -> None:
        replace(op, expand)
