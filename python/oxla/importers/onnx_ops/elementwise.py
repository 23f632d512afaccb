"""Element-wise ONNX operators: arithmetic, comparisons, logic, activations, casts, Where and Clip."""

from __future__ import annotations

import math

import numpy as np

from oxla.builder import functions as F
from oxla.builder.tensor import Tensor
from oxla.dialects import stablehlo as shlo
from oxla.importers.onnx_ops.core import (
    Node, add, broadcast_to, chlo, compare, convert, dims, div, element_type, elementwise, is_float, maximum,
    minimum, mul, operator, scalar, select, sub)

# ONNX name: StableHLO builder of one operand
UNARY = {
    "Abs": shlo.abs, "Neg": shlo.negate, "Exp": shlo.exponential, "Log": shlo.log, "Sqrt": shlo.sqrt,
    "Sigmoid": shlo.logistic, "Tanh": shlo.tanh, "Floor": shlo.floor, "Ceil": shlo.ceil, "Sin": shlo.sine,
    "Cos": shlo.cosine, "Tan": shlo.tan, "Sign": shlo.sign, "Round": shlo.round_nearest_even, "Not": shlo.not_,
    "BitwiseNot": shlo.not_,
}
# ONNX name: CHLO op, expanded into StableHLO by oxla's input legalization
UNARY_CHLO = {"Erf": "erf", "Asin": "asin", "Acos": "acos", "Atan": "atan", "Sinh": "sinh", "Cosh": "cosh",
              "Asinh": "asinh", "Acosh": "acosh", "Atanh": "atanh"}
# ONNX name: StableHLO builder of two operands (broadcast with numpy's rules)
BINARY = {
    "Add": shlo.add, "Sub": shlo.subtract, "Mul": shlo.multiply, "Div": shlo.divide, "And": shlo.and_,
    "Or": shlo.or_, "Xor": shlo.xor, "BitwiseAnd": shlo.and_, "BitwiseOr": shlo.or_, "BitwiseXor": shlo.xor,
}
COMPARISONS = {"Equal": "EQ", "Less": "LT", "LessOrEqual": "LE", "Greater": "GT", "GreaterOrEqual": "GE"}
# ONNX name: (StableHLO builder combining two operands, what a single operand gives)
VARIADIC = {"Max": shlo.maximum, "Min": shlo.minimum, "Sum": shlo.add, "Mean": shlo.add}


def _unary(build):
    """The translation of a one-operand operator."""
    return lambda n: Tensor(build(n.input(0)))


def _unary_chlo(name: str):
    """The translation of a one-operand operator that CHLO provides."""
    return lambda n: chlo(name, n.input(0))


def _binary(build):
    """The translation of a two-operand, broadcasting operator."""
    return lambda n: elementwise(build, n.input(0), n.input(1))


def _comparison(direction: str):
    """The translation of a comparison."""
    return lambda n: compare(n.input(0), n.input(1), direction)


def _variadic(name: str, build):
    """The translation of Max, Min, Sum or Mean over any number of operands."""
    def translate(n: Node) -> Tensor:
        xs = n.inputs()
        result = xs[0]
        for x in xs[1:]:
            result = elementwise(build, result, x)
        return div(result, len(xs)) if name == "Mean" else result
    return translate


for _name, _build in UNARY.items():
    operator(_name)(_unary(_build))
for _name, _op in UNARY_CHLO.items():
    operator(_name)(_unary_chlo(_op))
for _name, _build in BINARY.items():
    operator(_name)(_binary(_build))
for _name, _direction in COMPARISONS.items():
    operator(_name)(_comparison(_direction))
for _name, _build in VARIADIC.items():
    operator(_name)(_variadic(_name, _build))


@operator("Pow")
def pow_(n: Node) -> Tensor:
    """x ** y, the exponent converted to the base's type."""
    x = n.input(0)
    return elementwise(shlo.power, x, convert(n.input(1), x.element_type))


@operator("BitShift")
def bit_shift(n: Node) -> Tensor:
    """x shifted left or right (logically: ONNX shifts unsigned integers) by y bits."""
    build = shlo.shift_left if n.attr("direction") == "LEFT" else shlo.shift_right_logical
    return elementwise(build, n.input(0), n.input(1))


@operator("Mod")
def mod(n: Node) -> Tensor:
    """Remainder: C's fmod (fmod=1) or with the divisor's sign (fmod=0, integers)."""
    x, y = n.input(0), n.input(1)
    if n.attr("fmod", 0) or is_float(x):
        return elementwise(shlo.remainder, x, y)
    r = elementwise(shlo.remainder, x, y)
    adjust = Tensor(shlo.and_(compare(r, 0, "NE"), compare(compare(r, 0, "LT"), compare(y, 0, "LT"), "NE")))
    return select(adjust, add(r, y), r)


@operator("Reciprocal")
def reciprocal(n: Node) -> Tensor:
    """1 / x."""
    x = n.input(0)
    return div(scalar(1, x), x)


@operator("IsNaN")
def is_nan(n: Node) -> Tensor:
    """x != x."""
    x = n.input(0)
    return compare(x, x, "NE")


@operator("IsInf")
def is_inf(n: Node) -> Tensor:
    """Whether x is +inf (detect_positive) or -inf (detect_negative)."""
    x = n.input(0)
    positive, negative = compare(x, np.inf, "EQ"), compare(x, -np.inf, "EQ")
    if n.attr("detect_positive", 1) and n.attr("detect_negative", 1):
        return Tensor(shlo.or_(positive, negative))
    return positive if n.attr("detect_positive", 1) else negative


# Activations -------------------------------------------------------------------------------------------------------

@operator("Relu")
def relu(n: Node) -> Tensor:
    """max(x, 0)."""
    return maximum(n.input(0), 0)


@operator("LeakyRelu")
def leaky_relu(n: Node) -> Tensor:
    """x, or alpha * x below 0."""
    x = n.input(0)
    return select(compare(x, 0, "LT"), mul(x, n.attr("alpha", 0.01)), x)


@operator("PRelu")
def prelu(n: Node) -> Tensor:
    """x, or slope * x below 0 (slope broadcasts)."""
    x = n.input(0)
    return select(compare(x, 0, "LT"), mul(x, n.input(1)), x)


@operator("ThresholdedRelu")
def thresholded_relu(n: Node) -> Tensor:
    """x above alpha, else 0."""
    x = n.input(0)
    return select(compare(x, n.attr("alpha", 1.0), "GT"), x, 0)


def _elu(x: Tensor, alpha: float) -> Tensor:
    """x, or alpha * (exp(x) - 1) below 0."""
    return select(compare(x, 0, "LT"), mul(Tensor(shlo.exponential_minus_one(x)), alpha), x)


@operator("Elu")
def elu(n: Node) -> Tensor:
    """Exponential linear unit."""
    return _elu(n.input(0), n.attr("alpha", 1.0))


@operator("Selu")
def selu(n: Node) -> Tensor:
    """gamma * elu(x, alpha)."""
    return mul(_elu(n.input(0), n.attr("alpha", 1.67326319217681884765625)), n.attr("gamma", 1.05070102214813232421875))


@operator("Celu")
def celu(n: Node) -> Tensor:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    x, alpha = n.input(0), n.attr("alpha", 1.0)
    return add(maximum(x, 0), minimum(mul(Tensor(shlo.exponential_minus_one(div(x, alpha))), alpha), 0))


def _hard_sigmoid(x: Tensor, alpha: float, beta: float) -> Tensor:
    """max(0, min(1, alpha * x + beta))."""
    return maximum(minimum(add(mul(x, alpha), beta), 1), 0)


@operator("HardSigmoid")
def hard_sigmoid(n: Node) -> Tensor:
    """max(0, min(1, alpha * x + beta))."""
    return _hard_sigmoid(n.input(0), n.attr("alpha", 0.2), n.attr("beta", 0.5))


@operator("HardSwish")
def hard_swish(n: Node) -> Tensor:
    """x * hard_sigmoid(x) with alpha 1/6, beta 1/2."""
    x = n.input(0)
    return mul(x, _hard_sigmoid(x, 1 / 6, 0.5))


def _softplus(x: Tensor) -> Tensor:
    """log(1 + exp(x)), computed without overflow."""
    tail = Tensor(shlo.exponential(Tensor(shlo.negate(Tensor(shlo.abs(x))))))
    return add(maximum(x, 0), Tensor(shlo.log_plus_one(tail)))


@operator("Softplus")
def softplus(n: Node) -> Tensor:
    """log(1 + exp(x))."""
    return _softplus(n.input(0))


@operator("Swish")
def swish(n: Node) -> Tensor:
    """x * sigmoid(alpha * x)."""
    x = n.input(0)
    return mul(x, Tensor(shlo.logistic(mul(x, n.attr("alpha", 1.0)))))


@operator("Shrink")
def shrink(n: Node) -> Tensor:
    """x + bias below -lambd, x - bias above lambd, else 0."""
    x, lambd, bias = n.input(0), n.attr("lambd", 0.5), n.attr("bias", 0.0)
    inner = select(compare(x, lambd, "GT"), sub(x, bias), 0)
    return select(compare(x, -lambd, "LT"), add(x, bias), inner)


@operator("Softsign")
def softsign(n: Node) -> Tensor:
    """x / (1 + |x|)."""
    x = n.input(0)
    return div(x, add(Tensor(shlo.abs(x)), 1))


@operator("Mish")
def mish(n: Node) -> Tensor:
    """x * tanh(softplus(x))."""
    x = n.input(0)
    return mul(x, Tensor(shlo.tanh(_softplus(x))))


@operator("Gelu", note="approximate='none' (erf) and 'tanh'")
def gelu(n: Node) -> Tensor:
    """x * Phi(x): exactly with erf, or the tanh approximation."""
    x = n.input(0)
    if n.attr("approximate", "none") == "tanh":
        inner = mul(add(x, mul(mul(mul(x, x), x), 0.044715)), math.sqrt(2 / math.pi))
        return mul(mul(x, 0.5), add(Tensor(shlo.tanh(inner)), 1))
    return mul(mul(x, 0.5), add(chlo("erf", mul(x, 1 / math.sqrt(2))), 1))


@operator("Clip", note="min and max may be run-time tensors")
def clip(n: Node) -> Tensor:
    """x limited to [min, max] (either bound optional)."""
    x = n.input(0)
    if n.has(1):
        x = maximum(x, n.input(1))
    if n.has(2):
        x = minimum(x, n.input(2))
    return x


@operator("Where")
def where(n: Node) -> Tensor:
    """x where condition, else y (all three broadcast)."""
    return select(n.input(0), n.input(1), n.input(2))


# Types and identity ------------------------------------------------------------------------------------------------

@operator("Cast", note="to every ONNX type StableHLO has; float to bool as x != 0")
def cast(n: Node) -> Tensor:
    """x converted to the `to` element type."""
    return convert(n.input(0), element_type(n.attr("to")))


@operator("CastLike")
def cast_like(n: Node) -> Tensor:
    """x converted to the element type of the second input."""
    return convert(n.input(0), n.input(1).element_type)


@operator("Identity")
def identity(n: Node) -> Tensor:
    """x unchanged."""
    return n.input(0)


@operator("Dropout", note="inference: the identity; a mask output is all true")
def dropout(n: Node) -> list:
    """Inference-mode dropout: x, and an all-true mask when asked for."""
    if n.has(2) and bool(np.asarray(n.static(2, what="training_mode")).reshape(-1)[0]):
        n.fail("training_mode=true is not supported (only inference)")
    x = n.input(0)
    outputs = [x]
    if n.wants(1):
        outputs.append(broadcast_to(F.constant(True), dims(x)))
    return outputs
