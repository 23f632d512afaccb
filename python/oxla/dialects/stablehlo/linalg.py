"""Linear algebra ops: dot_general and dot, convolution and dynamic_conv, einsum, cholesky, triangular_solve, fft.

dot_general and convolution share their element-type rules: equal operand
element types, or the specification's quantized combinations; the result
element type is the lhs's unless `preferred_element_type` asks for another
(the dialect accepts one, as JAX's preferred_element_type, e.g. i8 x i8 -> i32).
convolution and dynamic_conv share one shape rule; dynamic_conv's padding is an
operand, so its spatial result dimensions are known only when a constant op
made it.
"""

from __future__ import annotations

from oxla.dialects.stablehlo import attributes as A
from oxla.dialects.stablehlo import quant_types as QT
from oxla.dialects.stablehlo import types as T
from oxla.dialects.stablehlo._core import REQUIRED, Attr, Operand, OpSpec, Param, export
from oxla.dialects.stablehlo.rules import (
    check_dims, constant_ints, dtype_param, elem, expect_element, num_windows, padded_size, require, same_dim, shape,
    tensor, unique)

FAMILY = "linalg"
DotAlgorithm = A.DotAlgorithm
__all__ = ["DotAlgorithm"]

_PRECISION = A.Canonical(A.EnumArray(A.PRECISION))


def _stored(value):
    """An Attr default the builder stores on the op (for attributes the dialect requires)."""
    return lambda args: value


# Quantized element types ------------------------------------------------------------------------------------------

def _check_quantized(lhs_e, rhs_e, result_e) -> None:
    """The specification's rules for quantized dot_general/convolution element types."""
    lq, rq, oq = QT.parse(lhs_e), QT.parse(rhs_e), QT.parse(result_e)
    require(rq is not None and (lq is None) == (oq is None),
            f"quantized operations need a quantized rhs, and lhs and result both quantized or both not; "
            f"got {lhs_e}, {rhs_e} -> {result_e}", TypeError)
    require(all(z == 0 for z in rq.zero_points), f"rhs zero points must be 0, got {rhs_e}", TypeError)
    if lq is not None:
        require(lq.storage == rq.storage, f"lhs and rhs must have the same storage type, got {lhs_e} and {rhs_e}",
                TypeError)
        require(lq.expressed == rq.expressed == oq.expressed,
                f"lhs, rhs and result must have the same expressed type, got {lhs_e}, {rhs_e} -> {result_e}", TypeError)
        require(rq.axis is not None or oq.axis is None,
                f"a per-tensor quantized rhs needs a per-tensor quantized result, got {result_e}", TypeError)
    else:
        require(str(lhs_e) == rq.expressed == str(result_e),
                f"with a float lhs the lhs, the rhs's expressed type and the result must agree, "
                f"got {lhs_e}, {rhs_e} -> {result_e}", TypeError)


def _result_element(lhs, rhs, preferred):
    """lhs and rhs element types agree (or combine as quantized types); the result's is preferred or the lhs's."""
    lhs_e, rhs_e = elem(lhs), elem(rhs)
    result_e = lhs_e if preferred is None else dtype_param(preferred)
    if any(T.is_quantized(e) for e in (lhs_e, rhs_e, result_e)):
        _check_quantized(lhs_e, rhs_e, result_e)
    else:
        require(lhs_e == rhs_e, f"lhs and rhs must have the same element type, got {lhs_e} and {rhs_e}", TypeError)
    return result_e


def _check_precision(config) -> None:
    """precision_config is omitted or has one entry per operand."""
    require(not config or len(config) == 2, f"precision_config must have 2 entries (lhs, rhs), got {config}")


# dot_general, dot ---------------------------------------------------------------------------------------------------

def _dot_general(args):
    """Result dims: batching dims, then lhs's free dims, then rhs's free dims (in operand order)."""
    dn = args.dot_dimension_numbers
    lb, rb = list(dn.lhs_batching_dimensions), list(dn.rhs_batching_dimensions)
    lc, rc = list(dn.lhs_contracting_dimensions), list(dn.rhs_contracting_dimensions)
    ls, rs = shape(args.lhs), shape(args.rhs)
    require(len(lb) == len(rb), f"lhs_batching_dimensions and rhs_batching_dimensions must have the same size, "
                                f"got {lb} and {rb}")
    require(len(lc) == len(rc), f"lhs_contracting_dimensions and rhs_contracting_dimensions must have the same size, "
                                f"got {lc} and {rc}")
    for side, batching, contracting in (("lhs", lb, lc), ("rhs", rb, rc)):
        require(unique(batching + contracting),
                f"{side}_batching_dimensions and {side}_contracting_dimensions together must not repeat a dimension, "
                f"got {batching} and {contracting}")
    check_dims(lb, len(ls), "lhs_batching_dimensions")
    check_dims(lc, len(ls), "lhs_contracting_dimensions")
    check_dims(rb, len(rs), "rhs_batching_dimensions")
    check_dims(rc, len(rs), "rhs_contracting_dimensions")
    for kind, lhs_dims, rhs_dims in (("batching", lb, rb), ("contracting", lc, rc)):
        for a, b in zip(lhs_dims, rhs_dims):
            require(same_dim(ls[a], rs[b]), f"{kind} dimensions must have equal sizes: lhs dimension {a} is {ls[a]}, "
                                            f"rhs dimension {b} is {rs[b]}")
    _check_precision(args.precision_config)
    if args.algorithm is not None:
        require(all(p == "DEFAULT" for p in args.precision_config or []),
                f"precision_config must be DEFAULT when an algorithm is given, got {args.precision_config}")
    element = _result_element(args.lhs, args.rhs, args.preferred_element_type)
    axis = QT.quantization_dimension(elem(args.rhs))
    require(axis is None or axis not in rc,
            f"the rhs quantization dimension {axis} must not be a contracting dimension", TypeError)
    batch = [ls[a] if ls[a] is not None else rs[b] for a, b in zip(lb, rb)]
    free_lhs = [ls[d] for d in range(len(ls)) if d not in lb + lc]
    free_rhs = [rs[d] for d in range(len(rs)) if d not in rb + rc]
    return tensor(batch + free_lhs + free_rhs, element)


export(OpSpec("dot_general", (Operand("lhs"), Operand("rhs"),
                              Attr("dot_dimension_numbers", A.Canonical(A.Struct(A.DotDimensionNumbers, "dot")),
                                   REQUIRED),
                              Attr("precision_config", _PRECISION),
                              Attr("algorithm", A.Canonical(A.DotAlgorithmKind())),
                              Param("preferred_element_type", None)),
              _dot_general, family=FAMILY,
              doc="Dot products of lhs and rhs slices over batching and contracting dimensions."), globals())


def _dot(args):
    """Vector/matrix products of rank-1 or rank-2 operands: lhs's last dimension meets rhs's first."""
    ls, rs = shape(args.lhs), shape(args.rhs)
    require(len(ls) in (1, 2) and len(rs) in (1, 2), f"lhs and rhs must have rank 1 or 2, got {len(ls)} and {len(rs)}")
    require(same_dim(ls[-1], rs[0]),
            f"the last dimension of lhs ({ls[-1]}) must equal the first dimension of rhs ({rs[0]})")
    _check_precision(args.precision_config)
    element = _result_element(args.lhs, args.rhs, args.preferred_element_type)
    return tensor(list(ls[:-1]) + list(rs[1:]), element)


export(OpSpec("dot", (Operand("lhs"), Operand("rhs"), Attr("precision_config", _PRECISION),
                      Param("preferred_element_type", None)),
              _dot, family=FAMILY, doc="Deprecated vector/matrix product of rank-1 or rank-2 operands."), globals())


# convolution, dynamic_conv ----------------------------------------------------------------------------------------

def _conv_window_attributes(args, spatial: int) -> None:
    """window_strides, lhs_dilation, rhs_dilation, window_reversal: one entry per spatial dimension, positive."""
    for name in ("window_strides", "lhs_dilation", "rhs_dilation", "window_reversal"):
        value = getattr(args, name)
        if value is not None:
            require(len(value) == spatial,
                    f"{name} must have {spatial} entries (one per spatial dimension), got {value}")
            if name != "window_reversal":
                require(all(v > 0 for v in value), f"{name} must be positive, got {value}")


def _conv_dimension_numbers(dn, n: int) -> None:
    """Spatial dimension lists have rank - 2 entries; each operand's dimension numbers are unique and in range."""
    layouts = {
        "input": ([dn.input_batch_dimension] + list(dn.input_spatial_dimensions) + [dn.input_feature_dimension],
                  dn.input_spatial_dimensions),
        "kernel": (list(dn.kernel_spatial_dimensions) + [dn.kernel_input_feature_dimension,
                                                         dn.kernel_output_feature_dimension],
                   dn.kernel_spatial_dimensions),
        "output": ([dn.output_batch_dimension] + list(dn.output_spatial_dimensions) + [dn.output_feature_dimension],
                   dn.output_spatial_dimensions),
    }
    for side, (dims, spatial) in layouts.items():
        require(len(spatial) == n - 2, f"{side}_spatial_dimensions must have rank - 2 = {n - 2} entries, "
                                       f"got {list(spatial)}")
        check_dims(dims, n, f"{side} dimension numbers")


def _conv_groups(args, lhs_shape, rhs_shape) -> None:
    """feature_group_count and batch_group_count: positive, not both above 1, and dividing the right sizes."""
    dn, fgc, bgc = args.dimension_numbers, args.feature_group_count, args.batch_group_count
    require(fgc > 0, f"feature_group_count must be positive, got {fgc}")
    require(bgc > 0, f"batch_group_count must be positive, got {bgc}")
    require(fgc == 1 or bgc == 1,
            f"feature_group_count and batch_group_count cannot both exceed 1, got {fgc} and {bgc}")
    batch, features = lhs_shape[dn.input_batch_dimension], lhs_shape[dn.input_feature_dimension]
    kernel_in, kernel_out = rhs_shape[dn.kernel_input_feature_dimension], rhs_shape[dn.kernel_output_feature_dimension]
    require(batch is None or batch % bgc == 0,
            f"the input batch dimension ({batch}) must be divisible by batch_group_count ({bgc})")
    if features is not None:
        require(features % fgc == 0,
                f"the input feature dimension ({features}) must be divisible by feature_group_count ({fgc})")
        require(kernel_in is None or kernel_in == features // fgc,
                f"the kernel input feature dimension ({kernel_in}) must be the input feature dimension / "
                f"feature_group_count = {features // fgc}")
    if kernel_out is not None:
        require(kernel_out % bgc == 0,
                f"the kernel output feature dimension ({kernel_out}) must be divisible by batch_group_count ({bgc})")
        require(kernel_out % fgc == 0,
                f"the kernel output feature dimension ({kernel_out}) must be divisible by feature_group_count ({fgc})")


def _convolution_type(args, padding):
    """The convolution result type; `padding` is a list of [low, high] pairs, or None when unknown."""
    ls, rs = shape(args.lhs), shape(args.rhs)
    n = len(ls)
    require(n >= 2, f"lhs must have rank >= 2 (a batch and a feature dimension), got rank {n}")
    require(len(rs) == n, f"lhs and rhs must have the same rank, got {n} and {len(rs)}")
    dn = args.dimension_numbers
    _conv_dimension_numbers(dn, n)
    _conv_window_attributes(args, n - 2)
    if padding is not None:
        require(len(padding) == n - 2 and all(len(p) == 2 for p in padding),
                f"padding must have shape [{n - 2}, 2], got {padding}")
    _conv_groups(args, ls, rs)
    _check_precision(args.precision_config)
    element = _result_element(args.lhs, args.rhs, args.preferred_element_type)
    rhs_axis, result_axis = QT.quantization_dimension(elem(args.rhs)), QT.quantization_dimension(element)
    require(rhs_axis is None or rhs_axis == dn.kernel_output_feature_dimension,
            f"the rhs quantization dimension ({rhs_axis}) must be kernel_output_feature_dimension", TypeError)
    require(result_axis is None or result_axis == dn.output_feature_dimension,
            f"the result quantization dimension ({result_axis}) must be output_feature_dimension", TypeError)
    dims = [None] * n
    batch = ls[dn.input_batch_dimension]
    dims[dn.output_batch_dimension] = None if batch is None else batch // args.batch_group_count
    dims[dn.output_feature_dimension] = rs[dn.kernel_output_feature_dimension]
    spatial = n - 2
    strides = args.window_strides or [1] * spatial
    lhs_dilation, rhs_dilation = args.lhs_dilation or [1] * spatial, args.rhs_dilation or [1] * spatial
    for k in range(spatial):
        low, high = padding[k] if padding is not None else (0, 0)
        padded = padded_size(ls[dn.input_spatial_dimensions[k]], low, high, lhs_dilation[k] - 1)
        dims[dn.output_spatial_dimensions[k]] = None if padding is None else num_windows(
            padded, rs[dn.kernel_spatial_dimensions[k]], strides[k], rhs_dilation[k])
    return tensor(dims, element)


def _convolution(args):
    """Batch = lhs batch / batch_group_count, features = kernel output features, spatial = window positions."""
    spatial = max(len(shape(args.lhs)) - 2, 0)
    return _convolution_type(args, args.padding if args.padding is not None else [[0, 0]] * spatial)


def _dynamic_conv(args):
    """As convolution, with padding a 2-D integer operand of shape [rank - 2, 2]."""
    expect_element(args.padding, "padding", "int")
    pad_shape, spatial = shape(args.padding), len(shape(args.lhs)) - 2
    require(pad_shape == (spatial, 2), f"padding must have shape [{spatial}, 2], got {list(pad_shape)}")
    values = constant_ints(args.padding)
    return _convolution_type(args, None if values is None else [values[i:i + 2] for i in range(0, len(values), 2)])


_WINDOW_ATTRIBUTES = (Attr("window_strides", A.I64Array()), Attr("padding", A.Canonical(A.I64Matrix(2))),
                      Attr("lhs_dilation", A.I64Array()), Attr("rhs_dilation", A.I64Array()),
                      Attr("window_reversal", A.BoolArray()))
_CONV_ATTRIBUTES = (Attr("dimension_numbers", A.Canonical(A.ConvKind()), REQUIRED),
                    Attr("feature_group_count", A.Integer(), _stored(1)),
                    Attr("batch_group_count", A.Integer(), _stored(1)),
                    Attr("precision_config", _PRECISION),
                    Param("preferred_element_type", None))

export(OpSpec("convolution", (Operand("lhs"), Operand("rhs")) + _WINDOW_ATTRIBUTES + _CONV_ATTRIBUTES,
              _convolution, family=FAMILY,
              doc="Dot products of lhs windows with the kernel rhs (strided, padded, dilated, grouped)."), globals())
export(OpSpec("dynamic_conv", (Operand("lhs"), Operand("rhs"), Operand("padding"))
              + tuple(p for p in _WINDOW_ATTRIBUTES if p.name != "padding") + _CONV_ATTRIBUTES,
              _dynamic_conv, family=FAMILY, doc="convolution with the padding given as an operand."), globals())


# einsum, unary_einsum -----------------------------------------------------------------------------------------------

def _einsum_term(term: str, dims: tuple, what: str, sizes: dict) -> tuple:
    """Records each label's size from one input term; returns the dims its `...` covers."""
    labels = term.replace("...", "")
    require(labels.isalpha() or not labels, f"einsum_config term {term!r} must be letters and at most one '...'")
    require(term.count("...") <= 1, f"einsum_config term {term!r} has more than one '...'")
    if "..." in term:
        before = term.index("...")
        require(len(labels) <= len(dims), f"einsum_config term {term!r} has more labels than {what} has dimensions "
                                          f"({len(dims)})")
        ellipsis = dims[before:before + len(dims) - len(labels)]
        dims = dims[:before] + dims[before + len(ellipsis):]
    else:
        require(len(labels) == len(dims), f"einsum_config term {term!r} must have one label per dimension of {what} "
                                          f"({len(dims)})")
        ellipsis = ()
    for label, size in zip(labels, dims):
        known = sizes.get(label)
        require(same_dim(known, size), f"einsum_config label {label!r} has sizes {known} and {size}")
        sizes[label] = size if known is None else known
    return ellipsis


def _broadcast(a: tuple, b: tuple) -> tuple:
    """The broadcast of two `...` shapes, aligned on the right (sizes equal or 1)."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        require(x == 1 or y == 1 or same_dim(x, y),
                f"einsum '...' dimensions {list(a)} and {list(b)} do not broadcast")
        out.append(y if x == 1 else x if y == 1 else x if x is not None else y)
    return tuple(out)


def _einsum_dims(config: str, operands: list) -> list:
    """The result dims of an einsum config ("ab,bc->ac"; without "->" the labels used once, sorted)."""
    config = config.replace(" ", "")
    inputs, arrow, output = config.partition("->")
    terms = inputs.split(",")
    require(len(terms) == len(operands), f"einsum_config {config!r} must have {len(operands)} input term(s)")
    sizes, ellipsis = {}, ()
    for i, (term, operand) in enumerate(zip(terms, operands)):
        ellipsis = _broadcast(ellipsis, _einsum_term(term, shape(operand), f"operand {i}", sizes))
    if not arrow:
        used = inputs.replace("...", "").replace(",", "")
        output = ("..." if "..." in inputs else "") + "".join(sorted(c for c in set(used) if used.count(c) == 1))
    labels = output.replace("...", "")
    require((labels.isalpha() or not labels) and output.count("...") <= 1,
            f"einsum_config output {output!r} must be letters and at most one '...'")
    require(unique(labels), f"einsum_config output {output!r} repeats a label")
    for label in labels:
        require(label in sizes, f"einsum_config output label {label!r} is not in any input term")
    before = output.index("...") if "..." in output else len(output)
    return [sizes[c] for c in output[:before]] + list(ellipsis if "..." in output else ()) + \
        [sizes[c] for c in output[before:].replace("...", "")]


def _einsum(args):
    """lhs and rhs of one element type; labels shared by name have one size; the output lists kept labels."""
    require(elem(args.lhs) == elem(args.rhs),
            f"lhs and rhs must have the same element type, got {elem(args.lhs)} and {elem(args.rhs)}", TypeError)
    return tensor(_einsum_dims(args.einsum_config, [args.lhs, args.rhs]), elem(args.lhs))


def _unary_einsum(args):
    """The kept labels of the operand's term, in the output's order."""
    return tensor(_einsum_dims(args.einsum_config, [args.operand]), elem(args.operand))


export(OpSpec("einsum", (Operand("lhs"), Operand("rhs"), Attr("einsum_config", A.String(), REQUIRED)), _einsum,
              family=FAMILY, doc="Deprecated Einstein summation of two operands, as an \"ab,bc->ac\" config."),
       globals())
export(OpSpec("unary_einsum", (Operand("operand"), Attr("einsum_config", A.String(), REQUIRED)), _unary_einsum,
              family=FAMILY, doc="Deprecated Einstein summation of one operand, as an \"ab->a\" config."), globals())


# cholesky, triangular_solve -----------------------------------------------------------------------------------------

def _square_matrices(value, name: str) -> tuple:
    """A batch of square matrices: rank >= 2 and equal last two dimensions; returns the shape."""
    dims = shape(value)
    require(len(dims) >= 2, f"{name} must have rank >= 2, got shape {list(dims)}")
    require(same_dim(dims[-2], dims[-1]), f"the last two dimensions of {name} must be equal, got shape {list(dims)}")
    return dims


def _cholesky(args):
    """a is a batch of square float, complex or quantized matrices; the result has its type."""
    expect_element(args.a, "a", "float|complex|quantized")
    _square_matrices(args.a, "a")
    return args.a.type


export(OpSpec("cholesky", (Operand("a"), Attr("lower", A.Bool(), False)), _cholesky, family=FAMILY,
              doc="Cholesky factor (lower or upper triangle) of each Hermitian positive-definite matrix."), globals())


def _triangular_solve(args):
    """a: square matrices; b: same rank, batch and element type, matching a on its solved side; result is b's type."""
    expect_element(args.a, "a", "float|complex|quantized")
    expect_element(args.b, "b", "float|complex|quantized")
    a_e, b_e = elem(args.a), elem(args.b)
    baseline = [(q.storage, q.expressed) if q else str(e) for e, q in ((a_e, QT.parse(a_e)), (b_e, QT.parse(b_e)))]
    require(baseline[0] == baseline[1],
            f"a and b must have the same element type, got {a_e} and {b_e}", TypeError)
    a_dims, b_dims = _square_matrices(args.a, "a"), shape(args.b)
    require(len(a_dims) == len(b_dims), f"a and b must have the same rank, got {len(a_dims)} and {len(b_dims)}")
    require(all(same_dim(x, y) for x, y in zip(a_dims[:-2], b_dims[:-2])),
            f"a and b must have the same batch dimensions, got {list(a_dims[:-2])} and {list(b_dims[:-2])}")
    side = -2 if args.left_side else -1
    require(same_dim(a_dims[-1], b_dims[side]),
            f"b's dimension {len(b_dims) + side} ({b_dims[side]}) must equal a's size {a_dims[-1]} "
            f"(left_side={args.left_side})")
    require(args.transpose_a != "TRANSPOSE_INVALID", "transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT")
    return args.b.type


export(OpSpec("triangular_solve", (Operand("a"), Operand("b"), Attr("left_side", A.Bool(), _stored(True)),
                                   Attr("lower", A.Bool(), _stored(True)),
                                   Attr("unit_diagonal", A.Bool(), _stored(False)),
                                   Attr("transpose_a", A.Canonical(A.TRANSPOSE), _stored("NO_TRANSPOSE"))),
              _triangular_solve, family=FAMILY,
              doc="Solves op(a) x = b (left_side) or x op(a) = b for triangular a, batch by batch."), globals())


# fft ----------------------------------------------------------------------------------------------------------------

def _fft(args):
    """FFT/IFFT keep the complex type; RFFT: real -> complex, last dim n/2+1; IRFFT: complex -> real, last dim n."""
    length, kind = list(args.fft_length), args.fft_type
    dims = list(shape(args.operand))
    require(1 <= len(length) <= 3, f"fft_length must have 1 to 3 entries, got {length}")
    require(len(length) <= len(dims), f"fft_length ({length}) must not have more entries than the operand's rank "
                                      f"({len(dims)})")
    e = elem(args.operand)
    if kind == "RFFT":
        require(str(e) in ("f32", "f64"), f"RFFT needs an f32 or f64 operand, got {e}", TypeError)
        trailing = dims[-len(length):]
        require(all(same_dim(d, n) for d, n in zip(trailing, length)),
                f"RFFT needs the operand's last dimensions ({trailing}) to be fft_length ({length})")
        dims[-1] = dims[-1] if length[-1] == 0 else length[-1] // 2 + 1
        return tensor(dims, T.complex_of(e))
    expect_element(args.operand, "operand", "complex")
    if kind == "IRFFT":
        trailing = dims[-len(length):]
        expected = length[:-1] + [0 if length[-1] == 0 else length[-1] // 2 + 1]
        require(all(same_dim(d, n) for d, n in zip(trailing, expected)),
                f"IRFFT needs the operand's last dimensions ({trailing}) to be {expected} (fft_length {length} with "
                f"the last entry n as n/2+1)")
        dims[-1] = length[-1]
        return tensor(dims, T.complex_part(e))
    return args.operand.type


export(OpSpec("fft", (Operand("operand"), Attr("fft_type", A.Canonical(A.FFT_TYPE), REQUIRED),
                      Attr("fft_length", A.I64Array(), REQUIRED)),
              _fft, family=FAMILY, doc="Forward and inverse, complex and real Fourier transforms over the last "
                                       "1 to 3 dimensions."), globals())
