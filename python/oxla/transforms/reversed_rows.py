"""oxla-llvmcpu-reversed-row-loops, oxla-llvmcpu-vectorize-marked-loops: rows read backwards, as vectors.

IREE lowers `stablehlo.reverse` along the innermost dimension (`x[:, ::-1]`,
`jnp.flip(x, -1)`) to a generic that extracts x[i, n - 1 - j], and its
vectorizer reads such a row as a gather, one element at a time
(f32[4096,1024] on an AVX2 Zen 3: 4.0-4.4 ms; XLA 1.3-1.8 ms). LLVM's loop
vectorizer reads a row backwards as whole vectors and reverses them in
registers, but IREE runs it only on loops whose metadata asks for it.

oxla-llvmcpu-reversed-row-loops, after `executable-configurations`, gives
each dispatch that is one all-parallel generic reading an operand backwards
along its innermost loop scalar innermost steps (IREE's vectorizer then
leaves that loop to LLVM) and marks its function. oxla-llvmcpu-vectorize-
marked-loops, after `executable-targets` (LLVM dialect), asks LLVM to
vectorize the innermost loops of marked functions (`llvm.loop.vectorize.
enable`) and drops the mark. The same f32[4096,1024]: 1.75-1.87 ms, the same
bytes (docs/performance.md).
"""

from __future__ import annotations

from oxla import ir
from oxla.transforms.cpu_tiles import (
    configured_ops_by_function, loop_kinds, lowering_config_text, set_lowering_config, tiling_levels)
from oxla.transforms.registry import Pass, register_pass

# The discardable attribute that carries the request from the dispatch's func.func to its llvm.func.
MARK = "oxla.vectorize_loops_in_llvm"
_VECTORIZE = "#llvm.loop_annotation<vectorize = <disable = false>>"


def _loop_index(value) -> int | None:
    """The loop a linalg.index reads, or None for another value."""
    op = ir.producer(value)
    return ir.IntegerAttr(op.attributes["dim"]).value if op is not None and op.name == "linalg.index" else None


def _backwards(value, innermost: int) -> bool:
    """Whether an index is c - j, j the innermost loop's index and c a constant."""
    op = ir.producer(value)
    return op is not None and op.name == "arith.subi" and ir.constant_int(op.operands[0]) is not None \
        and _loop_index(op.operands[1]) == innermost


def reads_backwards(op) -> bool:
    """Whether an all-parallel linalg.generic without inputs reads one tensor, by a single extract at
    [outer loop indices or constants..., c - j], j its innermost loop's index: a row copied from its end
    (perhaps converted or scaled on the way). LLVM's vectorizer did not take rows reversed along an outer
    dimension too (jnp.flip of every axis), and ran one reversed row added to a second input 1.07x
    slower than IREE's gather, so those stay with IREE."""
    if op.name != "linalg.generic" or len(op.operands) != len(op.results):
        return False
    kinds = loop_kinds(op)
    if set(kinds) != {"parallel"}:
        return False
    extracts = [child for child in ir.ops(op) if child.name == "tensor.extract"]
    if len(extracts) != 1 or len(extracts[0].operands) < 2:
        return False
    *outer, last = list(extracts[0].operands)[1:]
    innermost = len(kinds) - 1
    return _backwards(last, innermost) and all(
        ir.constant_int(index) is not None or _loop_index(index) not in (None, innermost) for index in outer)


@register_pass
class ReversedRowLoops(Pass):
    """Leaves dispatches that read rows backwards to LLVM's loop vectorizer: scalar innermost steps, marked."""

    name = "oxla-llvmcpu-reversed-row-loops"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Sets the innermost vector step of each such dispatch's generic to 1 and marks its function."""
        for func, configured in configured_ops_by_function(module):
            if len(configured) != 1 or not reads_backwards(configured[0]):
                continue
            levels = tiling_levels(str(configured[0].attributes["lowering_config"]))
            if not levels or "vector_common_parallel" not in levels:
                continue
            levels["vector_common_parallel"][-1] = 1
            set_lowering_config(configured[0], lowering_config_text(levels))
            func.attributes[MARK] = ir.UnitAttr.get(context=ir.context())


def _one_block_loop_latches(func) -> list:
    """The llvm.br ops of an llvm.func that jump back to the block just before their own: the latches of
    loops whose body is one block (the innermost loops of a tiled dispatch)."""
    latches = []
    for region in func.regions:
        blocks = list(region.blocks)
        for before, block in zip(blocks, blocks[1:]):
            last = list(block.operations)[-1]
            if last.name == "llvm.br" and last.successors[0] == before:
                latches.append(last)
    return latches


@register_pass
class VectorizeMarkedLoops(Pass):
    """Asks LLVM to vectorize the innermost loops of the functions oxla-llvmcpu-reversed-row-loops marked."""

    name = "oxla-llvmcpu-vectorize-marked-loops"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Annotates each marked llvm.func's one-block loops with llvm.loop.vectorize.enable, then unmarks it."""
        marked = [op for op in ir.ops(module) if op.name == "llvm.func" and MARK in op.attributes]
        for func in marked:
            for latch in _one_block_loop_latches(func):
                latch.attributes["loop_annotation"] = ir.Attribute.parse(_VECTORIZE, context=ir.context())
            del func.attributes[MARK]
