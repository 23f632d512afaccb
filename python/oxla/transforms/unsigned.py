"""oxla-legalize-unsigned: rewrite the ops on unsigned integers that IREE's input conversion rejects.

IREE converts ui8..ui64 to signless integers while lowering StableHLO; a
few lowerings leave unsigned values behind ("failed to legalize unresolved
target materialization from ('ui32') to ('i32')", or an unsigned
linalg.generic). Each entry of `REWRITES` names such an op, when it fails,
and an equivalent form that IREE lowers:

- stablehlo.reverse only moves bits: it runs on the signless type of the
  same width, between two stablehlo.bitcast_convert ops;
- stablehlo.reduce_window with padding (as jnp.cumsum/cummax/... emit):
  the padding (and base dilation) become an explicit stablehlo.pad with the
  init value, which is how the spec defines them; the reduction itself is
  left as it is, so any body (add, mul, max, min, ...) keeps its meaning.
"""

from __future__ import annotations

from oxla import ir
from oxla.transforms.registry import RewritePass, register_pass
from oxla.dialects.stablehlo_build import create, i64s, pad, padding_of, replace, shape, tensor


def _is_unsigned(value) -> bool:
    """True for a tensor of ui8/ui16/ui32/ui64."""
    kind = value.type.element_type if isinstance(value.type, ir.ShapedType) else value.type
    return isinstance(kind, ir.IntegerType) and kind.is_unsigned


def _signless(value_type):
    """The same tensor type with a signless element of the same width."""
    width = ir.IntegerType(ir.ShapedType(value_type).element_type).width
    return tensor(ir.ShapedType(value_type).shape, ir.IntegerType.get_signless(width))


def _bitcast(value, value_type):
    """stablehlo.bitcast_convert between types of the same width: free, bit for bit."""
    return create("stablehlo.bitcast_convert", [value_type], [value])[0]


def _attributes(op) -> dict:
    """The op's attributes by name."""
    return {op.attributes[i].name: op.attributes[i].attr for i in range(len(op.attributes))}


def through_signless(op) -> list:
    """The op (no regions) on signless operands of the same width, its results cast back."""
    operands = [_bitcast(v, _signless(v.type)) if _is_unsigned(v) else v for v in op.operands]
    types = [_signless(r.type) if _is_unsigned(r) else r.type for r in op.results]
    results = create(op.name, types, operands, **_attributes(op))
    return [_bitcast(new, old.type) if _is_unsigned(old) else new for new, old in zip(results, op.results)]


def explicit_padding(op) -> list:
    """reduce_window on inputs padded by stablehlo.pad (edges and base dilation), with no padding of its own."""
    count = len(op.operands) // 2
    inputs, inits = list(op.operands)[:count], list(op.operands)[count:]
    rank = len(shape(inputs[0]))
    interior = [d - 1 for d in i64s(op, "base_dilations", [1] * rank)]
    padded = [pad(x, init, padding_of(op, rank), interior) for x, init in zip(inputs, inits)]
    attrs = {k: v for k, v in _attributes(op).items() if k not in ("padding", "base_dilations")}
    new = ir.Operation.create(op.name, results=[r.type for r in op.results], operands=[*padded, *inits],
                              attributes=attrs, regions=1)
    op.regions[0].blocks[0].append_to(new.regions[0])
    return list(new.results)


def _is_padded(op) -> bool:
    """True when a reduce_window pads or dilates its inputs."""
    rank = len(shape(op.operands[0]))
    return any(p != (0, 0) for p in padding_of(op, rank)) or i64s(op, "base_dilations", [1] * rank) != [1] * rank


# op name -> (does IREE reject this instance (given it touches unsigned values), the rewrite)
REWRITES = {
    "stablehlo.reverse": (lambda op: True, through_signless),
    "stablehlo.reduce_window": (_is_padded, explicit_padding),
}


def _needs_rewrite(op) -> bool:
    """True for an op in REWRITES, on unsigned values, in a form IREE rejects."""
    entry = REWRITES.get(op.name)
    return entry is not None and any(_is_unsigned(v) for v in [*op.operands, *op.results]) and entry[0](op)


@register_pass
class LegalizeUnsigned(RewritePass):
    """Rewrites ops on unsigned integers that IREE rejects (reverse, padded reduce_window) into forms it lowers."""

    name = "oxla-legalize-unsigned"
    roots = tuple(REWRITES)

    def matches(self, op) -> bool:
        return _needs_rewrite(op)

    def rewrite(self, op) -> None:
        replace(op, REWRITES[op.name][1])
