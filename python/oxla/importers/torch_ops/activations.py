"""Activation functions and softmax: relu, gelu (exact and tanh), silu, sigmoid-like functions, softmax, log_softmax.

Each computes in the dtype torch traced for its result.
"""

from __future__ import annotations

import math

from oxla.builder import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.importers.torch_ops import translates
from oxla.importers.torch_ops.elementwise import chlo, like, operands
from oxla.importers.torch_ops.lowering import axis, broadcast, convert, dims_of, reduce, reshape, slice_axis


def _relu(x: Tensor) -> Tensor:
    """max(x, 0)."""
    return shlo.maximum(x, like(x, 0))


def _sigmoid_times(x: Tensor, y: Tensor) -> Tensor:
    """x * sigmoid(y)."""
    return shlo.multiply(x, shlo.logistic(y))


def _softplus(x: Tensor, beta=1.0, threshold=20.0) -> Tensor:
    """log(1 + exp(beta x)) / beta, and x itself where beta x > threshold."""
    bx = shlo.multiply(x, like(x, beta)) if beta != 1 else x
    soft = shlo.log_plus_one(shlo.exponential(bx))
    if beta != 1:
        soft = shlo.divide(soft, like(x, beta))
    return shlo.select(shlo.compare(bx, like(x, threshold), "GT"), x, soft)


def _relu6(x: Tensor) -> Tensor:
    """min(max(x, 0), 6)."""
    return shlo.minimum(_relu(x), like(x, 6))


# aten name -> function of the operand (in the result's dtype)
_SIMPLE = {
    "relu": _relu,
    "relu6": _relu6,
    "silu": lambda x: _sigmoid_times(x, x),
    "mish": lambda x: shlo.multiply(x, shlo.tanh(_softplus(x))),
    "hardsigmoid": lambda x: shlo.divide(_relu6(shlo.add(x, like(x, 3))), like(x, 6)),
    "hardswish": lambda x: shlo.multiply(x, shlo.divide(_relu6(shlo.add(x, like(x, 3))), like(x, 6))),
    "log_sigmoid": lambda x: shlo.subtract(shlo.minimum(x, like(x, 0)),
                                           shlo.log_plus_one(shlo.exponential(shlo.negate(shlo.abs(x))))),
    "selu": lambda x: _elu(x, 1.6732632423543772, 1.0507009873554805, 1.0),
}


def _simple(fn):
    """The translation of a one-operand activation."""
    def lower(cx, a, *_):
        x, = operands(cx, [a], cx.out_dtype)
        return fn(x)
    return lower


for _name, _fn in _SIMPLE.items():
    translates(f"aten.{_name}.default")(_simple(_fn))


@translates("aten.log_sigmoid_forward.default")
def log_sigmoid_forward(cx, a, *_):
    """(log sigmoid(a), the buffer torch keeps for the backward pass, as zeros)."""
    x, = operands(cx, [a], cx.out_dtype, cx.out_dims(0))
    return _SIMPLE["log_sigmoid"](x), cx.placeholder(1)


@translates("aten.gelu.default")
def gelu(cx, a, approximate="none", *_):
    """x * Phi(x): exact with erf, or torch's tanh approximation."""
    x, = operands(cx, [a], cx.out_dtype)
    half = shlo.multiply(x, like(x, 0.5))
    if approximate == "tanh":
        inner = shlo.multiply(shlo.add(x, shlo.multiply(like(x, 0.044715), shlo.multiply(x, shlo.multiply(x, x)))),
                              like(x, math.sqrt(2 / math.pi)))
        return shlo.multiply(half, shlo.add(like(x, 1), shlo.tanh(inner)))
    return shlo.multiply(half, shlo.add(like(x, 1), chlo("erf", shlo.multiply(x, like(x, 1 / math.sqrt(2))))))


@translates("aten.hardtanh.default")
def hardtanh(cx, a, lo=-1.0, hi=1.0, *_):
    """a clamped to [lo, hi]."""
    x, = operands(cx, [a], cx.out_dtype)
    return shlo.minimum(shlo.maximum(x, like(x, lo)), like(x, hi))


@translates("aten.leaky_relu.default")
def leaky_relu(cx, a, slope=0.01, *_):
    """x where x > 0, else slope * x."""
    x, = operands(cx, [a], cx.out_dtype)
    return shlo.select(shlo.compare(x, like(x, 0), "GT"), x, shlo.multiply(x, like(x, slope)))


def _elu(x: Tensor, alpha, scale, input_scale) -> Tensor:
    """scale * (x where x > 0, else alpha * (exp(input_scale * x) - 1))."""
    negative = shlo.multiply(like(x, alpha), shlo.exponential_minus_one(shlo.multiply(x, like(x, input_scale))))
    out = shlo.select(shlo.compare(x, like(x, 0), "GT"), x, negative)
    return shlo.multiply(out, like(x, scale)) if scale != 1 else out


@translates("aten.elu.default")
def elu(cx, a, alpha=1.0, scale=1.0, input_scale=1.0, *_):
    """Exponential linear unit."""
    x, = operands(cx, [a], cx.out_dtype)
    return _elu(x, alpha, scale, input_scale)


@translates("aten.celu.default")
def celu(cx, a, alpha=1.0, *_):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    x, = operands(cx, [a], cx.out_dtype)
    return _elu(x, alpha, 1.0, 1.0 / alpha)


@translates("aten.softplus.default")
def softplus(cx, a, beta=1.0, threshold=20.0, *_):
    """log(1 + exp(beta x)) / beta (linear above the threshold)."""
    x, = operands(cx, [a], cx.out_dtype)
    return _softplus(x, beta, threshold)


@translates("aten.glu.default")
def glu(cx, a, dim=-1, *_):
    """First half times sigmoid of the second half along `dim`."""
    x = convert(a, cx.out_dtype)
    ax = axis(dim, x.ndim)
    half = x.shape[ax] // 2
    return _sigmoid_times(slice_axis(x, ax, 0, half), slice_axis(x, ax, half, 2 * half))


def _parametric_relu(x: Tensor, w: Tensor) -> Tensor:
    """x where x > 0, else w * x (w broadcast like x)."""
    return shlo.select(shlo.compare(x, like(x, 0), "GT"), x, shlo.multiply(w, x))


@translates("aten.prelu.default")
def prelu(cx, a, weight, *_):
    """PReLU: one slope, or one per channel (dimension 1, or 0 for a 1-D input)."""
    x, = operands(cx, [a], cx.out_dtype)
    w = reshape(convert(weight, x.dtype), [weight.size])
    place = [] if weight.size == 1 else [1 if x.ndim >= 2 else 0]
    return _parametric_relu(x, broadcast(reshape(w, []) if not place else w, dims_of(x), place))


@translates("aten._prelu_kernel.default")
def prelu_kernel(cx, a, weight, *_):
    """PReLU with slopes already shaped to broadcast against the input."""
    x, w = operands(cx, [a, weight], cx.out_dtype)
    return _parametric_relu(x, w)


# Softmax ----------------------------------------------------------------------------------------------------------

def softmax(x: Tensor, ax: int) -> Tensor:
    """exp(x - max) / sum(exp(x - max)) along `ax`."""
    dims = dims_of(x)
    shifted = shlo.subtract(x, broadcast(reduce(x, [ax], "max", keepdim=True), dims))
    e = shlo.exponential(shifted)
    return shlo.divide(e, broadcast(reduce(e, [ax], "sum", keepdim=True), dims))


def log_softmax(x: Tensor, ax: int) -> Tensor:
    """x - max - log(sum(exp(x - max))) along `ax`."""
    dims = dims_of(x)
    shifted = shlo.subtract(x, broadcast(reduce(x, [ax], "max", keepdim=True), dims))
    total = reduce(shlo.exponential(shifted), [ax], "sum", keepdim=True)
    return shlo.subtract(shifted, broadcast(shlo.log(total), dims))


@translates("aten.softmax.int", "aten._softmax.default")
def softmax_op(cx, a, dim, *_):
    """Softmax along `dim`, in the result's dtype."""
    x, = operands(cx, [a], cx.out_dtype)
    return softmax(x, axis(dim, x.ndim))


@translates("aten._safe_softmax.default")
def safe_softmax(cx, a, dim, *_):
    """Softmax along `dim`, with 0 (not NaN) for rows where every element is -inf."""
    x, = operands(cx, [a], cx.out_dtype)
    ax = axis(dim, x.ndim)
    masked = reduce(shlo.compare(x, like(x, float("-inf")), "EQ"), [ax], "and", keepdim=True)
    return shlo.select(broadcast(masked, dims_of(x)), like(x, 0), softmax(x, ax))


@translates("aten.log_softmax.int", "aten._log_softmax.default")
def log_softmax_op(cx, a, dim, *_):
    """Log-softmax along `dim`, in the result's dtype."""
    x, = operands(cx, [a], cx.out_dtype)
    return log_softmax(x, axis(dim, x.ndim))
