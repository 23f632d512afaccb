"""oxla-strip-locations: replace every location with `loc(unknown)`."""

from __future__ import annotations

from oxla import ir
from oxla.transforms.registry import Pass, register_pass


@register_pass
class StripLocations(Pass):
    """Replaces the locations of all ops and block arguments with unknown locations."""

    name = "oxla-strip-locations"
    anchor = None

    def run(self, op) -> None:
        unknown = ir.Location.unknown(op.context)

        def visit(child):
            child.location = unknown
            for region in child.regions:
                for block in region.blocks:
                    for arg in block.arguments:
                        arg.set_location(unknown)

        ir.walk(op, visit)
