"""oxla-legalize-fft: compute the stablehlo.fft forms IREE rejects as DFT matrix products.

IREE lowers fft only for one f32 dimension of power-of-two length; other
lengths, several dimensions, and f64 fail to compile. Those become one DFT
per transformed dimension: a dot_general with constant cos and sin
matrices, on the real and imaginary parts (`stablehlo.real`/`imag`, joined
by `stablehlo.complex`), so that no complex constant is needed. Per the
spec, FFT/IFFT transform every dimension of `fft_length`; RFFT takes the
real DFT of the last one (keeping N/2+1 outputs) and then complex DFTs of
the others; IRFFT inverts that: inverse complex DFTs of the leading
dimensions, then the Hermitian inverse of the last one. Inverses are scaled
by 1/N. O(N^2) work per dimension instead of O(N log N): meant for the
lengths that otherwise do not compile at all.
"""

from __future__ import annotations

import numpy as np

from oxla import ir
from oxla.dialects.elements import dtype_of
from oxla.transforms.registry import RewritePass, register_pass
from oxla.dialects.stablehlo_build import complex_parts, element, enum_name, i64_array, i64s, one, replace, shape, tensor


def _real_type(value):
    """f32/f64: the element type, or that of its real and imaginary parts."""
    kind = element(value)
    return kind.element_type if isinstance(kind, ir.ComplexType) else kind


def _cos_sin(rows: int, cols: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of 2*pi*k*n/length for k < rows, n < cols, with exact zeros, ones and symmetries.

    The angle is reduced exactly (in integers) to a quadrant and to at most
    pi/4 within it, so sin(pi) is 0 rather than 1.2e-16 and mirrored entries
    are equal.
    """
    turn = 4 * ((np.arange(rows)[:, None] * np.arange(cols)[None, :]) % length)  # angle in units of pi/(2*length)
    quadrant, rest = turn // length, turn % length
    mirrored = 2 * rest > length
    small = np.where(mirrored, length - rest, rest) * (np.pi / 2) / length
    cos, sin = np.where(mirrored, np.sin(small), np.cos(small)), np.where(mirrored, np.cos(small), np.sin(small))
    rotations = [(cos, sin), (-sin, cos), (-cos, -sin), (sin, -cos)]
    return (np.choose(quadrant, [c for c, _ in rotations]), np.choose(quadrant, [s for _, s in rotations]))


def _matrix(values: np.ndarray, real):
    """A constant [out, in] matrix of the real element type."""
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


def _complex_dfts(re, im, dims: list[tuple[int, int]], inverse: bool):
    """Complex DFTs (inverse ones scaled) along each (dim, length) of `dims`."""
    for dim, length in dims:
        re, im = _complex_dft(re, im, dim, length, inverse)
    return re, im


def _join(re, im, result_type):
    """The complex tensor re + i*im."""
    return one("stablehlo.complex", result_type, re, im)


def expand(op):
    """The fft's result computed with DFT matrix products."""
    x, result_type = op.operands[0], op.results[0].type
    lengths, kind = i64s(op, "fft_length", []), enum_name(op, "fft_type")
    rank = len(shape(x))
    dims = list(zip(range(rank - len(lengths), rank), lengths))  # (dim, length) per transformed dim
    if kind in ("FFT", "IFFT"):
        return _join(*_complex_dfts(*complex_parts(x), dims, kind == "IFFT"), result_type)
    if kind == "RFFT":
        return _join(*_complex_dfts(*_real_dft(x, lengths[-1]), dims[:-1], False), result_type)
    re, im = _complex_dfts(*complex_parts(x), dims[:-1], True)
    return _hermitian_inverse(re, im, lengths[-1])


def iree_lowers(op) -> bool:
    """True for the forms IREE compiles: one f32 dimension of power-of-two length."""
    lengths = i64s(op, "fft_length", [])
    power_of_two = len(lengths) == 1 and lengths[0] > 0 and lengths[0] & (lengths[0] - 1) == 0
    return power_of_two and ir.FloatType(_real_type(op.operands[0])).width == 32


@register_pass
class LegalizeFft(RewritePass):
    """Rewrites stablehlo.fft forms IREE rejects (several dims, lengths not a power of two, f64) as DFT matmuls."""

    name = "oxla-legalize-fft"
    roots = ("stablehlo.fft",)

    def matches(self, op) -> bool:
        return not iree_lowers(op)

    def rewrite(self, op) -> None:
        replace(op, expand)
