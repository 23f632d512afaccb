"""Batch, layer, group, instance and RMS normalization, in inference (eval) mode.

Channels are dimension 1 (batch and group norm); layer and RMS norm
normalize the trailing `normalized_shape` dimensions. Statistics are biased
(divide by the count), as torch's are.
"""

from __future__ import annotations

import torch

from oxla.builder import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.importers.torch_ops import translates
from oxla.importers.torch_ops.elementwise import like
from oxla.importers.torch_ops.lowering import (
    broadcast, convert, dim_product, dims_of, mean, reshape, scalar, variance)


def _per_channel(v, x: Tensor) -> Tensor:
    """A per-channel vector broadcast along dimension 1 of x (dimension 0 when x is 1-D)."""
    return broadcast(convert(v, x.dtype), dims_of(x), [1 if x.ndim > 1 else 0])


def _affine(y: Tensor, weight, bias, place) -> Tensor:
    """y * weight + bias, each broadcast by `place` (either may be None)."""
    if weight is not None:
        y = shlo.multiply(y, place(weight, y))
    if bias is not None:
        y = shlo.add(y, place(bias, y))
    return y


def _training_check(position: int):
    """A check rejecting batch norm in training mode (argument `position` is `training`)."""
    def check(node, args):
        return "training mode: call model.eval() before exporting" if args[position] else None
    return check


def batch_norm_eval(x: Tensor, weight, bias, running_mean, running_var, eps) -> Tensor:
    """(x - running_mean) / sqrt(running_var + eps) * weight + bias, per channel."""
    inv = shlo.rsqrt(shlo.add(convert(running_var, x.dtype), like(convert(running_var, x.dtype), eps)))
    y = shlo.multiply(shlo.subtract(x, _per_channel(running_mean, x)), _per_channel(inv, x))
    return _affine(y, weight, bias, _per_channel)


@translates("aten.batch_norm.default", check=_training_check(5), note="eval mode")
def batch_norm(cx, x, weight, bias, running_mean, running_var, training, momentum, eps, *_):
    """Batch norm with the running statistics."""
    return batch_norm_eval(convert(x, cx.out_dtype), weight, bias, running_mean, running_var, eps)


@translates("aten._native_batch_norm_legit_no_training.default")
def native_batch_norm_no_training(cx, x, weight, bias, running_mean, running_var, momentum, eps, *_):
    """(batch norm with the running statistics, and the saved statistics torch leaves empty in inference)."""
    out = batch_norm_eval(convert(x, cx.out_dtype), weight, bias, running_mean, running_var, eps)
    return out, cx.placeholder(1), cx.placeholder(2)


@translates("aten._native_batch_norm_legit.default", "aten.native_batch_norm.default", check=_training_check(5),
            note="eval mode")
def native_batch_norm(cx, x, weight, bias, running_mean, running_var, training, momentum, eps, *_):
    """(batch norm with the running statistics, and the saved statistics torch leaves empty in inference)."""
    return native_batch_norm_no_training(cx, x, weight, bias, running_mean, running_var, momentum, eps)


@translates("aten._native_batch_norm_legit_functional.default", check=_training_check(5), note="eval mode")
def native_batch_norm_functional(cx, x, weight, bias, running_mean, running_var, training, momentum, eps, *_):
    """(batch norm with the running statistics, two empty saved statistics, the running statistics unchanged)."""
    out, mean_, rstd = native_batch_norm_no_training(cx, x, weight, bias, running_mean, running_var, momentum, eps)
    return out, mean_, rstd, running_mean, running_var


@translates("aten._native_batch_norm_legit.no_stats")
def batch_norm_batch_statistics(cx, x, weight, bias, training, momentum, eps, *_):
    """(batch norm with the batch's own statistics, their mean, 1 / sqrt(variance + eps)): no running state."""
    x = convert(x, cx.out_dtype)
    reduce_axes = [d for d in range(x.ndim) if d != 1]
    y, mu, rstd = _normalize(x, reduce_axes, eps)
    channels = [dims_of(x)[1]]
    return _affine(y, weight, bias, _per_channel), reshape(mu, channels), reshape(rstd, channels)


def _normalize(x: Tensor, reduce_axes, eps) -> tuple[Tensor, Tensor, Tensor]:
    """(x normalized over the axes, their mean, 1 / sqrt(variance + eps)), statistics kept as size-1 axes."""
    mu = mean(x, reduce_axes, keepdim=True)
    rstd = shlo.rsqrt(shlo.add(variance(x, reduce_axes, 0, keepdim=True), like(mu, eps)))
    dims = dims_of(x)
    return shlo.multiply(shlo.subtract(x, broadcast(mu, dims)), broadcast(rstd, dims)), mu, rstd


def _trailing(v, y: Tensor) -> Tensor:
    """A tensor of the trailing normalized shape broadcast against y."""
    return broadcast(convert(v, y.dtype), dims_of(y))


@translates("aten.native_layer_norm.default")
def native_layer_norm(cx, x, normalized_shape, weight=None, bias=None, eps=1e-5, *_):
    """(layer norm over the trailing normalized_shape dimensions, mean, rstd)."""
    x = convert(x, cx.out_dtype)
    k = len(normalized_shape)
    y, mu, rstd = _normalize(x, list(range(x.ndim - k, x.ndim)), eps)
    return _affine(y, weight, bias, _trailing), mu, rstd


@translates("aten.layer_norm.default")
def layer_norm(cx, x, normalized_shape, weight=None, bias=None, eps=1e-5, *_):
    """Layer norm over the trailing normalized_shape dimensions."""
    return native_layer_norm(cx, x, normalized_shape, weight, bias, eps)[0]


@translates("aten.rms_norm.default")
def rms_norm(cx, x, normalized_shape, weight=None, eps=None, *_):
    """x / sqrt(mean(x^2) + eps) * weight over the trailing normalized_shape dimensions."""
    x = convert(x, cx.out_dtype)
    if eps is None:
        eps = torch.finfo(cx.out.dtype).eps
    k = len(normalized_shape)
    ms = mean(shlo.multiply(x, x), list(range(x.ndim - k, x.ndim)), keepdim=True)
    y = shlo.multiply(x, broadcast(shlo.rsqrt(shlo.add(ms, like(ms, eps))), dims_of(x)))
    return _affine(y, weight, None, _trailing)


@translates("aten.native_group_norm.default")
def native_group_norm(cx, x, weight, bias, n, c, hw, groups, eps, *_):
    """(group norm: channels in `groups` groups normalized per sample, mean [N, G], rstd [N, G])."""
    x = convert(x, cx.out_dtype)
    dims = dims_of(x)
    grouped = reshape(x, [dims[0], groups, _group_size(x, groups)])
    y, mu, rstd = _normalize(grouped, [2], eps)
    y = _affine(reshape(y, dims), weight, bias, _per_channel)
    return y, reshape(mu, [dims[0], groups]), reshape(rstd, [dims[0], groups])


def _group_size(x: Tensor, groups: int):
    """The number of elements in one group of one sample (C / groups times the spatial size)."""
    size = dim_product(dims_of(x)[1:])
    return size // groups if isinstance(size, int) else shlo.divide(size, scalar(groups, "i64"))


@translates("aten.group_norm.default")
def group_norm(cx, x, groups, weight=None, bias=None, eps=1e-5, *_):
    """Group norm."""
    return native_group_norm(cx, x, weight, bias, None, None, None, groups, eps)[0]


@translates("aten.instance_norm.default")
def instance_norm(cx, x, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, *_):
    """Instance norm: each sample's channels over their spatial dimensions (or the running statistics)."""
    x = convert(x, cx.out_dtype)
    if not use_input_stats:
        return batch_norm_eval(x, weight, bias, running_mean, running_var, eps)
    y, _, _ = _normalize(x, list(range(2, x.ndim)), eps)
    return _affine(y, weight, bias, _per_channel)
