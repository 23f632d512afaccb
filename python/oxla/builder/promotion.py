"""dtype promotion and broadcasting rules of the program builder.

Rules (documented in docs/builder.md):

- Two tensors of one dtype keep it. Otherwise the kinds order as
  bool < integer < floating < complex and the higher kind wins: an integer
  with a float gives the float's type (as in JAX, not numpy's f64).
- Within a kind, the wider type wins; bf16 with f16 gives f32; a signed and
  an unsigned integer give the signed type wide enough for both (i8 with ui8
  gives i16); ui64 with a signed type has no integer result and is an error.
  A float with a complex type gives the complex type whose parts are at
  least as wide as the float.
- Python scalars are weak: they take the tensor's dtype when their kind fits
  (1 with bf16 stays bf16, 2.0 with f16 stays f16); a float scalar with an
  integer or boolean tensor gives f32, a complex scalar gives complex<f32>
  (or the complex type of the tensor's float), an int scalar with a boolean
  tensor gives i32.
- Shapes broadcast as numpy's do: aligned at the right, each pair of sizes
  equal or one of them 1.
"""

from __future__ import annotations

from oxla.dialects.stablehlo import types as T

BOOL, INTEGER, FLOATING, COMPLEX = range(4)


def kind(e) -> int:
    """The promotion kind of an element type."""
    if T.is_bool(e):
        return BOOL
    if T.is_integer(e):
        return INTEGER
    if T.is_float(e):
        return FLOATING
    if T.is_complex(e):
        return COMPLEX
    raise TypeError(f"no arithmetic promotion for element type {e}")


def promote(a, b):
    """The element type two tensors of element types `a` and `b` compute in."""
    if a == b:
        return a
    ka, kb = kind(a), kind(b)
    if ka != kb:
        high, low = (a, b) if ka > kb else (b, a)
        if kind(high) == COMPLEX and kind(low) == FLOATING and T.bit_width(low) > T.bit_width(T.complex_part(high)):
            return T.complex_of(low)
        return high
    if ka == INTEGER:
        return _promote_integers(a, b)
    if ka == FLOATING:
        wa, wb = T.bit_width(a), T.bit_width(b)
        return a if wa > wb else b if wb > wa else T.element_type("f32")
    return a if T.bit_width(a) >= T.bit_width(b) else b


def _promote_integers(a, b):
    """Two integer types: the wider of one signedness, or a signed type holding both."""
    ua, ub = T.is_unsigned(a), T.is_unsigned(b)
    wa, wb = T.bit_width(a), T.bit_width(b)
    if ua == ub:
        return a if wa >= wb else b
    signed, unsigned = (b, a) if ua else (a, b)
    if T.bit_width(signed) > T.bit_width(unsigned):
        return signed
    if T.bit_width(unsigned) >= 64:
        raise TypeError(f"no integer type holds both {a} and {b}; convert one explicitly with astype()")
    return T.element_type(f"i{2 * T.bit_width(unsigned)}")


def weak_scalar_type(value, tensor_element):
    """The element type a Python scalar takes next to a tensor of `tensor_element`."""
    k = kind(tensor_element)
    if isinstance(value, bool):
        return tensor_element
    if isinstance(value, int):
        return T.element_type("i32") if k == BOOL else tensor_element
    if isinstance(value, float):
        return tensor_element if k >= FLOATING else T.element_type("f32")
    if isinstance(value, complex):
        if k == COMPLEX:
            return tensor_element
        return T.complex_of(tensor_element) if k == FLOATING and str(tensor_element) in ("f32", "f64") \
            else T.element_type("complex<f32>")
    raise TypeError(f"not a Python scalar: {value!r}")


def default_scalar_type(value):
    """The element type of a Python scalar on its own: bool -> i1, int -> i32, float -> f32, complex -> complex<f32>."""
    for cls, name in ((bool, "i1"), (int, "i32"), (float, "f32"), (complex, "complex<f32>")):
        if isinstance(value, cls):
            return T.element_type(name)
    raise TypeError(f"not a Python scalar: {value!r}")


def broadcast_shapes(*shapes) -> tuple:
    """numpy's broadcast of static shapes (ValueError naming them when they do not broadcast)."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        sizes = {s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0}
        if None in sizes:
            if sizes - {None, 1}:
                raise ValueError(f"shapes {_show(shapes)} do not broadcast: a dynamic dimension meets a static one")
            out.append(None)
            continue
        sizes.discard(1)
        if len(sizes) > 1:
            raise ValueError(f"shapes {_show(shapes)} do not broadcast (numpy rules)")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _show(shapes) -> str:
    """Shapes as lists, for messages."""
    return ", ".join(str(["?" if d is None else d for d in s]) for s in shapes)


def is_unsigned_or_bool(e) -> bool:
    """Whether comparisons and shifts treat `e` as unsigned."""
    return T.is_bool(e) or T.is_unsigned(e)

