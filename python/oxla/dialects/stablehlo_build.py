"""Small builders for StableHLO ops, shared by oxla's rewrites.

They build at the current insertion point and location (`replace` sets both
around the op being rewritten). Attributes may be given as objects or as
MLIR text.
"""

from __future__ import annotations

import math
import re

import ml_dtypes
import numpy as np

from oxla import ir
from oxla.dialects.elements import to_numpy


def shape(value) -> list[int]:
    """The static shape of a ranked tensor value."""
    return list(ir.RankedTensorType(value.type).shape)


def element(value):
    """The element type of a ranked tensor value."""
    return ir.RankedTensorType(value.type).element_type


def complex_parts(value) -> tuple:
    """The real and imaginary parts of a complex tensor (stablehlo.real and stablehlo.imag)."""
    part = tensor(shape(value), ir.ComplexType(element(value)).element_type)
    return one("stablehlo.real", part, value), one("stablehlo.imag", part, value)


def conjugate(value):
    """The complex conjugate of `value` (`value` itself for real types)."""
    if not isinstance(element(value), ir.ComplexType):
        return value
    real, imag = complex_parts(value)
    return one("stablehlo.complex", value.type, real, one("stablehlo.negate", imag.type, imag))


def tensor(dims: list[int], element_type):
    """A ranked tensor type."""
    return ir.RankedTensorType.get(list(dims), element_type)


def create(name: str, result_types, operands, **attributes):
    """Builds one op (attributes as objects or MLIR text) at the insertion point; its results."""
    attrs = {k: ir.Attribute.parse(v) if isinstance(v, str) else v for k, v in attributes.items()}
    return ir.Operation.create(name, results=list(result_types), operands=list(operands), attributes=attrs).results


def one(name: str, result_type, *operands, **attributes):
    """Builds one single-result op; its result."""
    return create(name, [result_type], operands, **attributes)[0]


def attributes(op) -> dict:
    """The op's attributes by name, to build a like op with."""
    return {name: op.attributes[name] for name in op.attributes}


def i64_array(values):
    """A DenseI64ArrayAttr, the form StableHLO's shape attributes take."""
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def i64s(op, name: str, default: list[int]) -> list[int]:
    """An optional i64 array attribute of `op` as a list."""
    return list(ir.DenseI64ArrayAttr(op.attributes[name])) if name in op.attributes else default


def flag(op, name: str) -> bool:
    """An optional boolean attribute of `op` (false when absent)."""
    return name in op.attributes and ir.BoolAttr(op.attributes[name]).value


def enum_name(op, name: str) -> str:
    """The case of an enum attribute such as `#stablehlo<fft_type RFFT>`: "RFFT"."""
    return str(op.attributes[name]).split()[-1].rstrip(">")


_FIELD = re.compile(r"(\w+) = (\[[^\]]*\]|\d+)")


def dimension_numbers(attr) -> dict[str, list[int] | int]:
    """The fields of a `#stablehlo.gather<...>` or `#stablehlo.scatter<...>` attribute.

    Absent lists are absent from the result; index_vector_dim defaults to 0 as both ops' syntax does.
    """
    fields: dict[str, list[int] | int] = {"index_vector_dim": 0}
    for name, value in _FIELD.findall(str(attr)):
        fields[name] = [int(v) for v in value.strip("[]").split(",") if v.strip()] if value.startswith("[") else int(value)
    return fields


def positions(dims: list[int], dim: int, element=None):
    """Each element's index along `dim` of a tensor of `dims` (stablehlo.iota), of `element` (i32 unless
    given)."""
    return one("stablehlo.iota", tensor(dims, element or ir.IntegerType.get_signless(32)),
               iota_dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dim))


def splat(value, value_type):
    """A tensor of `value_type` filled with `value`; complex ones from two real splats (IREE rejects complex<f64>
    constants)."""
    kind = ir.ShapedType(value_type).element_type
    if isinstance(kind, ir.ComplexType):
        part_type = tensor(ir.ShapedType(value_type).shape, kind.element_type)
        return one("stablehlo.complex", value_type, splat(complex(value).real, part_type),
                   splat(complex(value).imag, part_type))
    literal = _float_literal(float(value), kind) if isinstance(kind, ir.FloatType) else str(int(value))
    return one("stablehlo.constant", value_type, value=f"dense<{literal}> : {value_type}")


def _float_literal(value: float, kind) -> str:
    """`value` as MLIR writes a float of type `kind`: decimal, or its bits in hex for NaN and infinities
    (which have no decimal form)."""
    if math.isfinite(value):
        return repr(value)
    width = ir.FloatType(kind).width
    dtype = ml_dtypes.bfloat16 if str(kind) == "bf16" else {16: np.float16, 32: np.float32, 64: np.float64}[width]
    return f"0x{int(np.array(value, dtype).view(f'uint{width}')):0{width // 4}X}"


def replace(op, build):
    """Replaces `op` by what `build(op)` (a value or a list of them) creates just before it, at its location."""
    with ir.InsertionPoint(op), op.location:
        built = build(op)
    results = list(built) if isinstance(built, (list, tuple)) else [built]
    for old, new in zip(op.results, results):
        old.replace_all_uses_with(new)
    op.erase()
    return results


def padding_of(op, rank: int) -> list[tuple[int, int]]:
    """The (low, high) `padding` of a windowed op per dim; zeros when absent."""
    if "padding" not in op.attributes:
        return [(0, 0)] * rank
    return [tuple(p) for p in to_numpy(op.attributes["padding"]).reshape(rank, 2).tolist()]


def pad(value, fill, padding: list[tuple[int, int]], interior: list[int] | None = None):
    """stablehlo.pad of `value` with the scalar `fill`; `value` itself when nothing is added."""
    interior = interior or [0] * len(padding)
    if all(p == (0, 0) for p in padding) and not any(interior):
        return value
    dims = [lo + n + max(n - 1, 0) * i + hi for n, (lo, hi), i in zip(shape(value), padding, interior)]
    return one("stablehlo.pad", tensor(dims, element(value)), value, fill,
               edge_padding_low=i64_array([lo for lo, _ in padding]),
               edge_padding_high=i64_array([hi for _, hi in padding]), interior_padding=i64_array(interior))


def slice_to(value, limits: list[int]):
    """The leading `limits` part of `value`; `value` itself when that is all of it."""
    if shape(value) == list(limits):
        return value
    return one("stablehlo.slice", tensor(limits, element(value)), value, start_indices=i64_array([0] * len(limits)),
               limit_indices=i64_array(limits), strides=i64_array([1] * len(limits)))


def strided_slice(value, starts: list[int], limits: list[int], strides: list[int]):
    """stablehlo.slice of `value`; `value` itself when that is all of it."""
    dims = [len(range(a, b, s)) for a, b, s in zip(starts, limits, strides)]
    if dims == shape(value):
        return value
    return one("stablehlo.slice", tensor(dims, element(value)), value, start_indices=i64_array(starts),
               limit_indices=i64_array(limits), strides=i64_array(strides))


def transpose(value, perm: list[int]):
    """stablehlo.transpose by `perm`; `value` itself for the identity."""
    if list(perm) == sorted(perm):
        return value
    dims = shape(value)
    return one("stablehlo.transpose", tensor([dims[p] for p in perm], element(value)), value,
               permutation=i64_array(perm))


def concatenate(parts: list, dim: int):
    """`parts` joined along `dim` (stablehlo.concatenate)."""
    dims = shape(parts[0])
    dims[dim] = sum(shape(p)[dim] for p in parts)
    return one("stablehlo.concatenate", tensor(dims, element(parts[0])), *parts,
               dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dim))


def reshape(value, dims: list[int]):
    """stablehlo.reshape to `dims`; `value` itself when it already has them."""
    if shape(value) == list(dims):
        return value
    return one("stablehlo.reshape", tensor(dims, element(value)), value)


def convert(value, element_type):
    """`value` as `element_type` elements (stablehlo.convert); `value` itself when it has them."""
    if element(value) == element_type:
        return value
    return one("stablehlo.convert", tensor(shape(value), element_type), value)


def barrier(values: list) -> list:
    """`values` through one stablehlo.optimization_barrier, which IREE neither fuses across nor folds."""
    return list(create("stablehlo.optimization_barrier", [v.type for v in values], values))


def barrier_operands(op, test) -> None:
    """Replaces each operand of `op` for which `test(value)` holds by that value through an
    optimization_barrier of its own, placed before `op`."""
    with ir.InsertionPoint(op), op.location:
        for index, value in enumerate(list(op.operands)):
            if test(value):
                op.operands[index] = barrier([value])[0]


def summing_type(element_type):
    """The type sums of `element_type` floats are taken in, as XLA's dots take them: f32 for narrower
    floats (bf16, f16), else the type itself."""
    return ir.F32Type.get() if ir.FloatType(element_type).width < 32 else element_type


def compare(lhs, rhs, direction: str, kind: str):
    """stablehlo.compare of two tensors of one type (direction LT, EQ, ...; kind SIGNED, TOTALORDER, ...):
    an i1 tensor of their shape."""
    return one("stablehlo.compare", tensor(shape(lhs), ir.IntegerType.get_signless(1)), lhs, rhs,
               comparison_direction=f"#stablehlo<comparison_direction {direction}>",
               compare_type=f"#stablehlo<comparison_type {kind}>")


def take_along(value, positions, dim: int):
    """value[..., positions[...], ...] along `dim`: stablehlo.gather with every other dimension a batch
    dimension (numpy's take_along_axis); `positions` has `value`'s shape but for `dim`."""
    dims = shape(positions)
    batch = [d for d in range(len(dims)) if d != dim]
    indices = reshape(positions, dims + [1])
    numbers = (f"#stablehlo.gather<collapsed_slice_dims = [{dim}], operand_batching_dims = {batch}, "
               f"start_indices_batching_dims = {batch}, start_index_map = [{dim}], index_vector_dim = {len(dims)}>")
    return one("stablehlo.gather", tensor(dims, element(value)), value, indices, dimension_numbers=numbers,
               slice_sizes=i64_array([1] * len(dims)))


def broadcast(value, dims: list[int], kept: list[int]):
    """stablehlo.broadcast_in_dim of `value` to `dims`, its dimensions becoming `kept`."""
    return one("stablehlo.broadcast_in_dim", tensor(dims, element(value)), value, broadcast_dimensions=i64_array(kept))


def reduce(value, init, dimensions: list[int], combiner: str):
    """stablehlo.reduce of `value` over `dimensions` from the 0-d `init`, combining with the binary
    element-wise op `combiner` (stablehlo.add, stablehlo.maximum, ...)."""
    dims = [n for d, n in enumerate(shape(value)) if d not in dimensions]
    op = ir.Operation.create("stablehlo.reduce", results=[tensor(dims, element(value))], operands=[value, init],
                             attributes={"dimensions": i64_array(dimensions)}, regions=1)
    scalar = init.type
    block = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        ir.Operation.create("stablehlo.return", operands=[one(combiner, scalar, *block.arguments)])
    return op.results[0]


def while_loop(condition, body, carried: list) -> list:
    """A stablehlo.while over `carried`: `condition(*values)` gives the 0-d i1 that runs another trip,
    `body(*values)` the next values. The loop's final values."""
    types = [v.type for v in carried]
    loop = ir.Operation.create("stablehlo.while", results=types, operands=list(carried), regions=2)
    check = loop.regions[0].blocks.append(*types)
    with ir.InsertionPoint(check):
        ir.Operation.create("stablehlo.return", operands=[condition(*check.arguments)])
    step = loop.regions[1].blocks.append(*types)
    with ir.InsertionPoint(step):
        ir.Operation.create("stablehlo.return", operands=list(body(*step.arguments)))
    return list(loop.results)


def conditional(predicate, types: list, then, otherwise) -> list:
    """A stablehlo.if on the 0-d i1 `predicate` giving values of `types`: those `then()` builds where it
    holds, else those `otherwise()` builds, each in its own branch."""
    op = ir.Operation.create("stablehlo.if", results=list(types), operands=[predicate], regions=2)
    for region, branch in zip(op.regions, (then, otherwise)):
        with ir.InsertionPoint(region.blocks.append()):
            ir.Operation.create("stablehlo.return", operands=list(branch()))
    return list(op.results)


def counted_loop(count: int, carried: list, body) -> list:
    """A stablehlo.while running `body(step, *values)` for step = 0 .. count - 1 (a 0-d i32) on the
    `carried` values; `body` returns their next values. The loop's final values."""
    counter = tensor([], ir.IntegerType.get_signless(32))

    def more(step, *values):
        return compare(step, splat(count, counter), "LT", "SIGNED")

    def trip(step, *values):
        return [one("stablehlo.add", counter, step, splat(1, counter)), *body(step, *values)]

    return while_loop(more, trip, [splat(0, counter)] + list(carried))[1:]
