"""Image-shaped ONNX operators: Resize, DepthToSpace and SpaceToDepth.

Resize is separable: each resized axis is resampled on its own. Nearest
sampling gathers the chosen rows (a product with a one-hot matrix when
other sizes are dynamic); linear sampling multiplies by a constant
interpolation matrix, built in numpy at import time from the coordinate
transformation ONNX names.
"""

from __future__ import annotations

import numpy as np

from oxla.builder import functions as F
from oxla.builder.tensor import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo import types as T
from oxla.importers.onnx_ops.core import Node, attribute, axis_index, constant, dim, operator, reshape
from oxla.importers.onnx_ops.linalg import dot

# coordinate_transformation_mode: output coordinate x, scale, input and output lengths -> input coordinate
COORDINATES = {
    "half_pixel": lambda x, s, n, m: (x + 0.5) / s - 0.5,
    "pytorch_half_pixel": lambda x, s, n, m: (x + 0.5) / s - 0.5 if m > 1 else np.zeros_like(x),
    "align_corners": lambda x, s, n, m: x * (n - 1) / (m - 1) if m > 1 else np.zeros_like(x),
    "asymmetric": lambda x, s, n, m: x / s,
    "tf_half_pixel_for_nearest": lambda x, s, n, m: (x + 0.5) / s,
    "half_pixel_symmetric": lambda x, s, n, m: n / 2 * (1 - m / (s * n)) + (x + 0.5) / s - 0.5,
}
# nearest_mode: input coordinate -> the index it picks
NEAREST = {
    "round_prefer_floor": lambda c: np.where(c - np.floor(c) == 0.5, np.floor(c), np.round(c)),
    "round_prefer_ceil": lambda c: np.where(c - np.floor(c) == 0.5, np.ceil(c), np.round(c)),
    "floor": np.floor,
    "ceil": np.ceil,
}


def _unsupported_resize(node) -> str | None:
    """Resize variants without a translation: cubic, tf_crop_and_resize, antialiasing."""
    mode = attribute(node, "mode", "nearest")
    if mode not in ("nearest", "linear"):
        return f"mode={mode}"
    coordinates = attribute(node, "coordinate_transformation_mode", "half_pixel")
    if coordinates not in COORDINATES:
        return f"coordinate_transformation_mode={coordinates}"
    if attribute(node, "antialias", 0):
        return "antialias=1"
    return None


def _resize_plan(n: Node, x: Tensor) -> dict[int, tuple[int, float]]:
    """Resized axis -> (output length, scale), from the scales or sizes input."""
    axes = [axis_index(a, x.ndim, n) for a in n.attr("axes", list(range(x.ndim)))]
    lengths = [x.shape[a] for a in axes]
    if n.has(3):
        sizes = n.static_ints(3, what="sizes")
        if any(size is None for size, out in zip(lengths, sizes) if size != out):
            n.fail("resizing a dynamic axis is not supported")
        scales = [out / size if size else 1.0 for out, size in zip(sizes, lengths)]
        policy = n.attr("keep_aspect_ratio_policy", "stretch")
        if policy != "stretch":
            common = (min if policy == "not_larger" else max)(scales)
            scales = [common] * len(axes)
            sizes = [int(np.floor(size * common + 0.5)) for size in lengths]
    else:
        scales = [float(s) for s in np.asarray(n.static(2, what="scales")).reshape(-1)]
        if any(size is None for size, s in zip(lengths, scales) if s != 1.0):
            n.fail("resizing a dynamic axis is not supported")
        sizes = [size if s == 1.0 else int(np.floor(size * s)) for size, s in zip(lengths, scales)]
    return {a: (out, s) for a, out, s in zip(axes, sizes, scales) if out != x.shape[a] or s != 1.0}


def _source(n: Node, length: int, out: int, scale: float) -> np.ndarray:
    """The input coordinate of each output position along one axis."""
    mode = n.attr("coordinate_transformation_mode", "half_pixel")
    return COORDINATES[mode](np.arange(out, dtype=np.float64), scale, length, out)


def _nearest(n: Node, x: Tensor, axis: int, out: int, scale: float) -> Tensor:
    """x resampled along `axis` by picking the nearest input position."""
    length = x.shape[axis]
    picked = NEAREST[n.attr("nearest_mode", "round_prefer_floor")](_source(n, length, out, scale))
    picked = np.clip(picked, 0, length - 1).astype(np.int64)
    if None not in x.shape:
        return F.take(x, F.constant(picked), axis=axis)
    matrix = np.zeros((length, out), T.to_numpy_dtype(x.element_type))
    matrix[picked, np.arange(out)] = 1
    return _apply(x, axis, matrix)


def _linear(n: Node, x: Tensor, axis: int, out: int, scale: float) -> Tensor:
    """x resampled along `axis` by linear interpolation between the two nearest input positions."""
    length = x.shape[axis]
    source = np.clip(_source(n, length, out, scale), 0, length - 1)
    low = np.floor(source).astype(np.int64)
    high = np.minimum(low + 1, length - 1)
    weight = source - low
    matrix = np.zeros((length, out), np.float64)
    np.add.at(matrix, (low, np.arange(out)), 1 - weight)
    np.add.at(matrix, (high, np.arange(out)), weight)
    return _apply(x, axis, matrix.astype(T.to_numpy_dtype(x.element_type)))


def _apply(x: Tensor, axis: int, matrix: np.ndarray) -> Tensor:
    """x with `axis` (of length rows) replaced by the matrix's columns: sum_i x[.., i, ..] * matrix[i, j]."""
    y = dot(x, constant(matrix), contract=([axis], [0]))
    order = list(range(x.ndim - 1))
    order.insert(axis, x.ndim - 1)
    return F.transpose(y, order)


@operator("Resize", note="nearest and linear; every coordinate transformation but tf_crop_and_resize; static "
                         "scales or sizes", unsupported=_unsupported_resize)
def resize(n: Node) -> Tensor:
    """x resampled along each axis whose size changes."""
    x = n.input(0)
    sample = _linear if n.attr("mode", "nearest") == "linear" else _nearest
    for axis, (out, scale) in _resize_plan(n, x).items():
        x = sample(n, x, axis, out, scale)
    return x


# Moving blocks between depth and space ---------------------------------------------------------------------------

@operator("DepthToSpace", note="DCR and CRD modes")
def depth_to_space(n: Node) -> Tensor:
    """[N, C*b*b, H, W] -> [N, C, H*b, W*b]."""
    x = n.input(0)
    b = n.attr("blocksize")
    batch, channels, height, width = dim(x, 0), x.shape[1] // (b * b), dim(x, 2), dim(x, 3)
    if n.attr("mode", "DCR") == "DCR":
        y = reshape(x, [batch, b, b, channels, height, width])
        y = Tensor(shlo.transpose(y, permutation=[0, 3, 4, 1, 5, 2]))
    else:
        y = reshape(x, [batch, channels, b, b, height, width])
        y = Tensor(shlo.transpose(y, permutation=[0, 1, 4, 2, 5, 3]))
    return reshape(y, [batch, channels, _times(height, b), _times(width, b)])


@operator("SpaceToDepth")
def space_to_depth(n: Node) -> Tensor:
    """[N, C, H*b, W*b] -> [N, C*b*b, H, W]."""
    x = n.input(0)
    b = n.attr("blocksize")
    if None in x.shape[2:]:
        n.fail("needs static spatial sizes")
    batch, channels, height, width = dim(x, 0), x.shape[1], x.shape[2] // b, x.shape[3] // b
    y = reshape(x, [batch, channels, height, b, width, b])
    y = Tensor(shlo.transpose(y, permutation=[0, 3, 5, 1, 2, 4]))
    return reshape(y, [batch, channels * b * b, height, width])


def _times(size, factor: int):
    """A dimension entry multiplied by `factor`."""
    if isinstance(size, int):
        return size * factor
    return Tensor(shlo.multiply(size, F.constant(np.asarray([factor], np.int64))))
