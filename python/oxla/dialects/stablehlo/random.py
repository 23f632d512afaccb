"""Random number ops: rng (uniform or normal numbers of a given shape) and rng_bit_generator (random bits).

`rng` takes its result shape as a 1-D integer tensor operand: when that
tensor is made by a constant op the result shape is its values, otherwise
the result has that many dynamic dimensions. `rng_bit_generator` takes the
output's shape and dtype as Python values and returns
(output_state, output).
"""

from __future__ import annotations

from oxla.dialects.stablehlo import attributes as A
from oxla.dialects.stablehlo import types as T
from oxla.dialects.stablehlo._core import REQUIRED, Attr, Operand, OpSpec, Param, export
from oxla.dialects.stablehlo.rules import constant_ints, dtype_param, elem, expect_element, fail, require, shape, tensor

FAMILY = "random"


def _rng(args):
    """a and b are 0-d of one element type (C1), floats for NORMAL (C2); the result has shape `shape` (C3)."""
    for name in ("a", "b"):
        value = getattr(args, name)
        expect_element(value, name, "bool|int|float")
        require(not shape(value), f"{name} must be a 0-d tensor, got {value.type}")
    e = elem(args.a)
    require(elem(args.b) == e, f"a and b must have the same element type, got {e} and {elem(args.b)}", TypeError)
    if args.rng_distribution == "NORMAL":
        require(T.is_float(e), f"rng_distribution NORMAL needs floating-point a and b, got {e}", TypeError)
    dims = shape(args.shape)
    require(T.is_integer(elem(args.shape)) or str(elem(args.shape)) == "index",
            f"shape must have integer or index elements, got {args.shape.type}", TypeError)
    require(len(dims) == 1 and dims[0] is not None, f"shape must be a static 1-D tensor, got {args.shape.type}")
    values = constant_ints(args.shape)
    if values is None:
        return tensor([None] * dims[0], e)
    require(all(v >= 0 for v in values), f"shape must hold sizes >= 0, got {values}")
    return tensor(values, e)


export(OpSpec("rng", (Operand("a"), Operand("b"), Operand("shape"),
                      Attr("rng_distribution", A.Canonical(A.RNG_DISTRIBUTION), REQUIRED)),
              _rng, family=FAMILY,
              doc="Random numbers of the given shape: UNIFORM in [a, b) or NORMAL with mean a and deviation b."),
       globals())


# Sizes of initial_state each algorithm accepts (C2); DEFAULT's is implementation-defined.
STATE_SIZES = {"THREE_FRY": (2,), "PHILOX": (2, 3)}


def _rng_bit_generator(args):
    """output_state has initial_state's type (C1), a 1-D ui64 of the algorithm's size (C2); output is shape x dtype."""
    state = args.initial_state
    require(T.is_tensor(state.type) and str(elem(state)) == "ui64",
            f"initial_state must be a tensor of ui64, got {state.type}", TypeError)
    dims = shape(state)
    require(len(dims) == 1, f"initial_state must be 1-D, got {state.type}")
    sizes = STATE_SIZES.get(args.rng_algorithm)
    if sizes is not None and dims[0] is not None:
        require(dims[0] in sizes, f"initial_state of {args.rng_algorithm} must have "
                f"{' or '.join(map(str, sizes))} elements, got {dims[0]}")
    dtype = elem(state) if args.dtype is None else dtype_param(args.dtype)
    require(T.is_integer(dtype) or T.is_float(dtype), f"dtype must be an integer or floating-point type, got {dtype}",
            TypeError)
    try:
        out = T.normalize_shape(args.shape)
    except ValueError as e:
        fail(f"shape: {e}")
    require(all(d is not None for d in out), f"the output shape must be static, got {list(args.shape)}")
    return [state.type, tensor(out, dtype)]


export(OpSpec("rng_bit_generator", (Attr("rng_algorithm", A.Canonical(A.RNG_ALGORITHM), REQUIRED),
                                    Operand("initial_state"), Param("shape"), Param("dtype", None)),
              _rng_bit_generator, results="variadic", result_names=("output_state", "output"), family=FAMILY,
              doc="Random bits of the given shape and dtype from a generator state; gives (output_state, output)."),
       globals())
