"""oxla-llvmcpu-outer-reduction-tiles: tile sizes for reductions over outer dimensions on CPUs.

A reduction whose input's innermost (contiguous) dimension is kept, such as
a column sum `sum(x, axis=0)`, gets IREE 3.13's default CPU configuration of
32-wide workgroups and 16-wide vectors: each workgroup walks every row to
read 128 bytes of it, and the f32[4096,1024] column sum takes 1.35 ms where
XLA needs 0.24 ms. This pass, run on linalg after IREE's global
optimization, gives such reductions a `compilation_info` instead: each
workgroup owns a strip of the innermost dimension as wide as the vector
register file holds (32 registers of AVX-512: 512 f32), and the reduction
loop adds one row at a time into those accumulators, so every row is read
as long contiguous runs. The column sum then takes 0.18 ms
(docs/performance.md). Reductions over the innermost dimension and anything
already configured are left to IREE.
"""

from __future__ import annotations

import re

from oxla import ir
from oxla.transforms.registry import Pass, register_pass

_PIPELINE = "#iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>"
_DIM = re.compile(r"^d(\d+)$")
# Bytes of one element of the accumulator types handled.
_ELEMENT_BYTES = {"f64": 8, "i64": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2, "i8": 1}


def _iterators(op) -> list[str]:
    """'parallel' or 'reduction' for each loop of a linalg.generic."""
    return ["reduction" if "reduction" in str(a) else "parallel" for a in op.attributes["iterator_types"]]


def _last_dim(map_attr) -> int | None:
    """The loop dimension an indexing map's last result is (None when it is not a plain dimension)."""
    results = ir.AffineMapAttr(map_attr).value.results
    match = _DIM.match(str(results[-1])) if len(results) else None
    return int(match.group(1)) if match else None


def _vector_shape(module) -> tuple[int, int]:
    """(vector register bytes, register count) of the module's CPU target, from its executable target.

    The target is in the module's `hal.device.targets` before IREE's input phases and in the device
    global they turn it into afterwards.
    """
    module = module.operation
    texts = [str(module.attributes[a]) for a in ("hal.device.targets",) if a in module.attributes]
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "util.global" and "initial_value" in op.operation.attributes:
            texts.append(str(op.operation.attributes["initial_value"]))
    text = " ".join(texts)
    width = re.search(r"native_vector_size = (\d+)", text)
    vector_bytes = int(width.group(1)) if width else 16
    registers = 32 if "+avx512f" in text or "aarch64" in text else 16
    return vector_bytes, registers


def outer_reduction_config(op, vector_bytes: int, registers: int) -> str | None:
    """The lowering config for a linalg.generic that reduces over outer dimensions only, else None."""
    if op.name != "linalg.generic" or "compilation_info" in op.attributes or "lowering_config" in op.attributes:
        return None
    iterators = _iterators(op)
    if "reduction" not in iterators or len(op.results) != 1 or len(op.operands) != 2:
        return None
    if any(child.operation.name == "linalg.index" for child in op.regions[0].blocks[0].operations):
        return None
    maps = list(op.attributes["indexing_maps"])
    inner = _last_dim(maps[0])
    input_type = ir.RankedTensorType(op.operands[0].type)
    result_type = ir.RankedTensorType(op.results[0].type)
    element = _ELEMENT_BYTES.get(str(result_type.element_type))
    if inner is None or iterators[inner] != "parallel" or element is None or not input_type.has_static_shape:
        return None
    size = input_type.shape[-1]
    width = min(size, registers * vector_bytes // element)
    distribution = [width if d == inner else (1 if it == "parallel" else 0) for d, it in enumerate(iterators)]
    parallel = [width if d == inner else (1 if it == "parallel" else 0) for d, it in enumerate(iterators)]
    reduction = [1 if it == "reduction" else 0 for it in iterators]
    return (f"#iree_cpu.lowering_config<distribution = {distribution}, vector_common_parallel = {parallel}, "
            f"vector_reduction = {reduction}>")


@register_pass
class OuterReductionTiles(Pass):
    """Gives reductions over outer dimensions register-wide CPU tiles (IREE's default reads 128 bytes per row)."""

    name = "oxla-llvmcpu-outer-reduction-tiles"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Sets compilation_info on every linalg.generic that qualifies (see outer_reduction_config)."""
        vector_bytes, registers = _vector_shape(module)
        found = []
        ir.walk(module, lambda op: found.append(op) if op.name == "linalg.generic" else None)
        for op in found:
            config = outer_reduction_config(op, vector_bytes, registers)
            if config is not None:
                op.attributes["compilation_info"] = ir.Attribute.parse(
                    f"#iree_codegen.compilation_info<lowering_config = {config}, translation_info = {_PIPELINE}>",
                    context=ir.context())
