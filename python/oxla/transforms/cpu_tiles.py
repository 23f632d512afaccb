"""CPU tile sizes IREE 3.13 gets wrong: oxla-llvmcpu-outer-reduction-tiles, oxla-llvmcpu-pack-vector-tiles,
oxla-llvmcpu-pack-panels, oxla-llvmcpu-mmt4d-register-tiles and oxla-llvmcpu-mmt4d-row-blocks.

oxla-llvmcpu-outer-reduction-tiles:

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
already configured are left to IREE. On AVX2 (16 registers of 8 lanes)
that strip of 128 reads 512 bytes of each 4 KiB row in turn; there a
workgroup owns a 512-wide strip and adds it 16 rows at a time, a 64-wide
step (half the registers) per row, its accumulators loaded and stored once
per chunk. On a Zen 3 core the column sum took 0.79-1.14 ms instead of
1.10-1.82 in seven paired rounds of `iree-benchmark-module`, 1.04x-1.29x
faster with its input resident through iree.runtime, and 1.04x-1.07x on two
threads (docs/performance.md). Reductions over more than one dimension, or
whose loops do not divide into such chunks and steps, keep the strip.
IREE collapses adjacent reduced dimensions into one when it forms dispatches,
and the collapsed op loses the tiles, so the pass runs again on the
dispatches (after `executable-sources`) for ops still without any: a global
mean pool over f32[8,7,7,2048] took 0.44 ms with IREE's tiles, 0.10 ms
with the strip (XLA 0.20 ms). Such a reduction may read several inputs,
all along its innermost loop (x and the column means, for a variance).
Where it adds a product of values its body computes (the squared
deviations `(x - mean)^2` of a column variance), MLIR's vectorizer turned
the sum of products into a contraction that LLVM ran one lane at a time
(a scalar FMA and shuffles per element): the pass writes that product as
`math.fma(a, b, -0.0)`, the same product exactly, which the vectorizer
leaves element-wise. `x.var(axis=0)` over f32[4096,1024] on a Zen 3 core
(`tools.bench.ops` `column_variance`, paired, medians of 15): 5.13 ms
with IREE's tiles for the deviations' sum, 3.01 ms with the chunks, 1.29
ms with the fma as well (XLA 2.17 ms); on a Zen 4 (AVX-512, the strip)
2.5-4.5 ms without the fma, 0.90-0.97 ms with it (two paired rounds,
medians of 9; XLA 1.7-2.5 ms).

oxla-llvmcpu-pack-vector-tiles: IREE configures the dispatch that fuses the
transformer block's residual sum and layer norm with the packs of the next
matmul's operands one of two ways, which one varying from run to run. Both
vectorize part of it as 16x256 blocks (4096-lane vectors: a 16x16 pack
stepping sixteen tiles, or inner steps of 256) whose shuffles LLVM's
VectorCombine takes 1-2 s to compile: the block compiled in 3-4 s. In every
function that packs, this pass caps inner vector steps at one native vector
and a pack's steps at 256 elements (a 16x16 tile, folded into the common
level). Both runs then get the same configuration and the block compiles in
about 2 s, with the same results and run time (docs/performance.md). On
AVX2 (8 lanes) IREE instead leaves the residual's 8x8 pack unstepped in
most compiles and rejects the 16x256 block that makes; there the pass gives
such packs one-tile inner steps and folds nothing. IREE steps only the last
pack of a dispatch, so the norm's [8, 1] column pack, first, vectorized as
one 8x256 transpose that LLVM took 1.9 s over; the pass moves it last and
gives the workgroup one row of tiles. On AVX-512 a pack that another op of
its dispatch reads (a convolution kernel's, in its mmt4d's dispatch) keeps
its one-tile inner step: folded, it became one 32 KiB vector that IREE
rejected. Run after IREE's `executable-configurations` phase.

oxla-llvmcpu-pack-panels: a data-tiled matmul whose operands arrive at run
time packs each in a dispatch of its own, which IREE distributes as blocks
of tiles that read their source rows in short pieces. For the bf16 GEMM the
left operand's pack (16x2 tiles, blocks of 32 panels by 64 column tiles)
took 0.30 ms of the call's 5.0 ms inside the program; given one whole panel
of 16 rows per workgroup (read end to end, written as one contiguous panel)
it takes 0.10 ms, and the f32 GEMM's 0.31 ms take 0.25 ms. The f32 GEMM's
right operand's pack, given every column tile of 16 whole rows per
workgroup, takes 0.24-0.27 ms instead of 0.35-0.37 ms (docs/performance.md).
The pass does that for every stand-alone 2-D pack of either layout that
still gets at least `min-workgroups` workgroups. Run after
`executable-configurations`.

oxla-llvmcpu-mmt4d-register-tiles: IREE's generated code for a data-tiled
f32 matmul (`linalg.mmt4d` with 16x16x1 tiles on AVX-512) accumulates one
16x16 tile at a time: per step one vector of the right operand and sixteen
broadcasts of the left, 17 loads for 16 FMAs. Stepping 8 rows of two
adjacent column tiles instead keeps as many accumulators (16 registers)
for 10 loads: the f32 GEMM 1024^3 takes 8.4-8.8 ms instead of 9.2-9.5 on
one thread, 5.0-5.6 instead of 6.1-6.5 ms on two (XLA 8.1-8.3 and 4.3-4.4
ms), BERT 2-5% less (docs/performance.md). The pass does that where it is
safe and pays: matmul dispatches of one mmt4d with its fill, unpack and
element-wise consumers, built without microkernels, of at least
MIN_MULTIPLY_ADDS. Those other ops are then no longer fused into the
steps: IREE vectorizes each as one block per workgroup, so a workgroup keeps at most
MAX_WORKGROUP_TILES tiles (and one with an odd number of column tiles
gets twice as many when that fits); a 64-tile block is past what IREE
accepts. With element-wise consumers the cap is MAX_FUSED_TILES: LLVM
takes long over their larger blocks (the MLP compiled in 1.2-1.4 s
instead of 0.55-0.6 s at 8 tiles). Run after `executable-configurations`.

oxla-llvmcpu-mmt4d-row-blocks: IREE gives a data-tiled matmul's workgroups
one or two row tiles of the result and a few column tiles, and runs them
row after row, so every row of tiles reads the whole packed right operand.
Where that operand outgrows the cache (a layer's weights passed as an
argument, f32[4096,4096]: 64 MiB), it streams from memory once per row of
tiles: 64x4096x4096 on AVX2 (8-row tiles, workgroups of 1x2 tiles) read it
8 times and took 93 ms, against XLA's 51. Workgroups of all 8 row tiles
read it once, each keeping its two column panels in cache while the rows
go by: 52 ms; 256x4096x4096 296 -> 149 ms (XLA 154). The pass gives such
matmuls (the register-tile pass's dispatches, right operand of
MIN_ROW_BLOCK_RIGHT_BYTES or more) the most row tiles that keep the
workgroup's result block within MAX_BLOCK_VECTORS native vectors
(MAX_FUSED_BLOCK_VECTORS with element-wise consumers) and
MIN_ROW_BLOCK_WORKGROUPS workgroups. Run after the register-tile pass.

oxla-llvmcpu-conv-register-tiles: IREE steps an f32 NHWC convolution on
AVX-512 by 8 output pixels of 16 features (one vector) per step, but on AVX2
by 4 pixels of 4 features, half a vector: the ResNet block's 3x3
convolutions took 10-11 ms each there, against XLA's 3.4 ms. Where a
convolution's feature step is narrower than a native vector, the pass
steps 4 pixels of two vectors' features (8 accumulators) and one input
channel at a time: 2.9-3.2 ms (docs/performance.md). Its reduction loop
then takes four channels per iteration, in order: paired runs of the
ResNet block and the stage transition on Zen 3 were 7-20% faster, with
the same outputs. Run after `executable-configurations`.

oxla-llvmcpu-row-reduction-steps: IREE steps a reduction over the
innermost dimension (a row sum) by 8 rows of one vector, reading eight
rows side by side. On AVX2 one row at a time, four vectors per step (one
sequential stream, four accumulators), took the f32[4096,1024] row sum
from 1.6-1.9 ms to 0.9-1.1 ms (rows of 256 and 512: 0.63x-0.76x); in the
elementwise chain's normalisation (mean and variance over rows of 4096, in
one dispatch with the output) it took the chain from 15.9 ms to 14.9-15.2
ms. The pass does that on targets with fewer than 16 lanes, in dispatches
of fills, such reductions and element-wise ops, unless a reduction reads
along its row from memory not contiguous there (a column of a panel: IREE
puts each element into the vector at a computed lane, through the stack
for several registers; an LU's pivot search 4 -> 1 us); the transformer block's
and BERT's norms and softmaxes (rows of 128 and 256) ran within noise of
IREE's steps. A reduction of everything to one value (`x.sum()`) IREE
steps one vector at a time into one accumulator, each add waiting for the
last; four vectors a step took f32[4096,1024] from 0.58 to 0.29 ms
(`tools.bench.ops` `total_sum`, paired; XLA 0.43-0.45 ms). Run after
`executable-configurations`.

oxla-llvmcpu-elementwise-steps: IREE steps an element-wise dispatch by one
native vector, and on AVX2 the loop over a transcendental body (the
elementwise chain's tanh, logistic and exp: 130 instructions per 8 lanes)
waits on its own dependency chains: little more than one iteration fits
the core's window. Two vectors a step interleave two chains: on a Zen 3
core the chain's element-wise dispatch over f32[1024,4096] took 8.4-10.3
ms instead of 10.2-11.4, gelu 5.4-6.2 ms instead of 6.9-7.6, and the zoo's
elementwise chain 0.88x as long (docs/performance.md). The pass does that on
targets with fewer than 16 lanes, in dispatches that are one all-parallel
linalg.generic holding math or a division, or 32 ops or more of other
arithmetic (oxla's f32 expm1: 5.6 -> 5.0 ms over f32[4096,1024]); loads and
stores bound the rest.
It also steps four vectors at a time where such a dispatch gathers along
rows (tensor.extract whose computed place moves along the row: an
embedding lookup, a sort's permutation of each row): f32[32000,512] at
4096 ids 0.52-0.59 -> 0.43-0.44 ms, a sort of f32[64,1024] rows 7.1 -> 5.9
ms (docs/performance.md). One gathered element broadcast along a row is
left at one vector (four ran 1.2x slower), and so is a dispatch that reads
along its innermost loop from memory not contiguous there (an entry of
each matrix of a batch): IREE puts each such element into the vector at a
computed lane, through the stack for a vector of several registers (a
batched 4x4 solve 2.98 -> 0.95 ms). Run after
`executable-configurations`.
"""

from __future__ import annotations

import dataclasses
import math
import re

from oxla import ir
from oxla.transforms.registry import Pass, register_pass

_PIPELINE = "#iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>"
_DIM = re.compile(r"^d(\d+)$")
_ITERATOR = re.compile(r"\b(parallel|reduction)\b")
# Bytes of one element of the accumulator types handled.
_ELEMENT_BYTES = {"f64": 8, "i64": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2, "i8": 1}
# Native f32 lanes of the AVX-512 CPUs the defaults were measured on: packs fold one-tile steps into the
# common level from there, and the passes and configurations for narrower vectors (AVX2) act below it.
_AVX512_LANES = 16


def loop_kinds(op) -> list[str]:
    """'parallel' or 'reduction' for each loop of a linalg.generic.

    Read off the array's text: taking its elements one by one would import the bindings' linalg
    module to type them, 0.12 s of the first compile in a process."""
    return _ITERATOR.findall(str(op.attributes["iterator_types"]))


def _last_dim(map_attr) -> int | None:
    """The loop dimension an indexing map's last result is (None when it is not a plain dimension)."""
    results = ir.AffineMapAttr(map_attr).value.results
    match = _DIM.match(str(results[-1])) if len(results) else None
    return int(match.group(1)) if match else None


def _native_vector_bytes(target_text: str) -> int:
    """The native_vector_size of an executable target's printed form (16 bytes when it has none)."""
    found = re.search(r"native_vector_size = (\d+)", target_text)
    return int(found.group(1)) if found else 16


def target_text(module) -> str:
    """The printed device targets of a module: its `hal.device.targets` before IREE's input phases, the
    device globals they turn into afterwards."""
    module = module.operation
    texts = [str(module.attributes[a]) for a in ("hal.device.targets",) if a in module.attributes]
    for op in ir.body_ops(module):
        if op.name == "util.global" and "initial_value" in op.attributes:
            texts.append(str(op.attributes["initial_value"]))
    return " ".join(texts)


def _vector_shape(module) -> tuple[int, int]:
    """(vector register bytes, register count) of the module's CPU target, from its executable target."""
    text = target_text(module)
    registers = 32 if "+avx512f" in text or "aarch64" in text else 16
    return _native_vector_bytes(text), registers


# AVX2 column sums: a workgroup's strip is added CHUNK_ROWS rows at a time, in steps of half the registers.
CHUNK_ROWS = 16
# Most steps per workgroup strip: up to CHUNK_STEPS_ALWAYS always, up to CHUNK_STEPS while two workgroups
# are left for two threads. Wider strips read each row of a wide matrix in longer runs: x @ W for one
# row x and W f32[4096,4096] an argument took 3.7 ms with 16 steps (1024 columns) instead of 4.4 ms with
# 8 on an AVX2 Zen 3 (paired); with 64 (one strip) 15 ms.
CHUNK_STEPS_ALWAYS = 8
CHUNK_STEPS = 16
# AVX-512 vector-matrix products of a run-time matrix add it GEMV_CHUNK_ROWS rows at a time too (the
# column sums keep the register-file strip): a strip read every row of a matrix too large for the
# caches in 2 KiB pieces, 16 KiB apart. x @ W, W f32[4096,4096], on a Zen 4 (iree-benchmark-module, one
# core, three interleaved rounds): strip 5.8-5.9 ms; chunks of 4, 8, 16 and 32 rows 3.4-3.9, 3.2-3.5,
# 3.7-3.9 and 4.7-5.3 ms.
GEMV_CHUNK_ROWS = 8


def chunked_outer_reduction_config(iterators: list[str], extents: list[int], inner: int, step: int,
                                   chunk: int = CHUNK_ROWS) -> str | None:
    """The lowering config that adds a reduction over one outer dimension `chunk` rows at a time: for
    each chunk, every `step`-wide piece of the workgroup's strip (accumulators loaded and stored once
    per chunk) adds its rows one by one; None when the loops do not divide into such steps."""
    reductions = [d for d, it in enumerate(iterators) if it == "reduction"]
    columns = extents[inner] // step if extents[inner] % step == 0 else 0
    rows = extents[reductions[0]] if len(reductions) == 1 else 0
    if rows <= 0 or rows % chunk or not columns:
        return None
    steps = max(n for n in range(1, CHUNK_STEPS + 1) if columns % n == 0
                and (n <= CHUNK_STEPS_ALWAYS or columns // n >= 2))
    kept = [1 if it == "parallel" else 0 for it in iterators]
    levels = {"distribution": [steps * step if d == inner else k for d, k in enumerate(kept)],
              "cache_reduction": [chunk if d == reductions[0] else 0 for d in range(len(iterators))],
              "vector_common_parallel": [step if d == inner else k for d, k in enumerate(kept)],
              "vector_reduction": [1 if it == "reduction" else 0 for it in iterators]}
    return lowering_config_text(levels)


def _loop_extents(op) -> list[int]:
    """The static trip count of each loop of a linalg.generic, read off its operands' maps (0 where none
    indexes the loop plainly)."""
    extents = [0] * len(op.attributes["iterator_types"])
    for map_attr, operand in zip(op.attributes["indexing_maps"], op.operands):
        shape = ir.ShapedType(operand.type).shape
        for position, expr in enumerate(ir.AffineMapAttr(map_attr).value.results):
            match = _DIM.match(str(expr))
            if match and not extents[int(match.group(1))]:
                extents[int(match.group(1))] = shape[position]
    return extents


# How many element-wise ops chained_reductions follows from a reduction before it gives up.
_CHAIN_OPS = 16


def chained_reductions(generics: list) -> set[int]:
    """The indices of the reductions among `generics` (linalg.generic ops) that read another one's result,
    or whose result another reads, directly or through element-wise ones. IREE fuses such reductions into
    one dispatch, whose loops then follow one of them: an argmax over columns split into a column max and
    the first row holding it (oxla/transforms/arg_reductions.py) took 36-44 ms with tiles for those, 7.5 ms
    without (f32[4096,1024] on an AVX2 Zen 3). Read through operands and results only: asking a value for
    its users or owner would import the bindings' linalg module for the OpViews (0.12 s)."""
    producer = {result: i for i, op in enumerate(generics) for result in op.results}
    inputs = [{producer[v] for v in op.operands if v in producer} - {i} for i, op in enumerate(generics)]
    users: list[set[int]] = [set() for _ in generics]
    for i, sources in enumerate(inputs):
        for j in sources:
            users[j].add(i)
    reduces = ["reduction" in loop_kinds(op) for op in generics]
    chained = set()
    for start in (i for i, r in enumerate(reduces) if r):
        for links in (inputs, users):  # up through what it reads, down through what reads it
            seen, frontier = {start}, [start]
            while frontier and start not in chained and len(seen) <= _CHAIN_OPS:
                for other in links[frontier.pop()] - seen:
                    if reduces[other]:
                        chained.add(start)
                        break
                    seen.add(other)
                    frontier.append(other)
    return chained


def outer_reduction_config(op, vector_bytes: int, registers: int, chained: bool = False) -> str | None:
    """The lowering config for a linalg.generic that reduces over outer dimensions only, else None.

    With AVX-512 (32 registers) a workgroup's strip is the register file and walks every row; with
    fewer lanes (AVX2) one outer reduction dimension is added in chunks of rows
    (chunked_outer_reduction_config) where the loops divide into them. A reduction `chained` to others
    (chained_reductions) keeps IREE's tiles."""
    if op.name != "linalg.generic" or "compilation_info" in op.attributes or "lowering_config" in op.attributes:
        return None
    iterators = loop_kinds(op)
    if "reduction" not in iterators or len(op.results) != 1 or len(op.operands) < 2:
        return None
    if any(child.name == "linalg.index" for child in ir.ops(op)):
        return None
    maps = list(op.attributes["indexing_maps"])
    inner = _last_dim(maps[0])
    if any(_last_dim(m) != inner for m in maps[1:-1]):  # every input read along the same innermost loop
        return None
    input_type = ir.RankedTensorType(op.operands[0].type)
    result_type = ir.RankedTensorType(op.results[0].type)
    element = _ELEMENT_BYTES.get(str(result_type.element_type))
    if inner is None or iterators[inner] != "parallel" or element is None or not input_type.has_static_shape \
            or chained:
        return None
    return _outer_config(iterators, _loop_extents(op), inner, input_type.shape[-1], element, vector_bytes, registers)


def _outer_config(iterators: list[str], extents: list[int], inner: int, size: int, element: int,
                  vector_bytes: int, registers: int, chunk: int | None = None) -> str:
    """The lowering config of a reduction over outer dimensions whose innermost loop `inner` (of `size`
    elements of `element` bytes) is parallel: chunked on AVX2 (CHUNK_ROWS rows) or wherever `chunk`
    rows are given, where the loops divide; else a strip of the register file."""
    if chunk is None and vector_bytes // 4 < _AVX512_LANES:
        chunk = CHUNK_ROWS
    if chunk is not None:
        step = registers // 2 * vector_bytes // element
        chunked = chunked_outer_reduction_config(iterators, extents, inner, step, chunk)
        if chunked is not None:
            return chunked
    width = min(size, registers * vector_bytes // element)
    strip = [width if d == inner else (1 if it == "parallel" else 0) for d, it in enumerate(iterators)]
    reduction = [1 if it == "reduction" else 0 for it in iterators]
    return lowering_config_text({"distribution": strip, "vector_common_parallel": strip, "vector_reduction": reduction})


def _compilation_info(config: str):
    """The compilation_info attribute of a lowering config under IREE's DoubleTilingExpert pipeline."""
    return ir.Attribute.parse(f"#iree_codegen.compilation_info<lowering_config = {config}, "
                              f"translation_info = {_PIPELINE}>", context=ir.context())


# Named ops that are matrix-vector products when the left or right side is one row (or of one row per
# batch): the maps of their operands (and result) when written as a linalg.generic (a batch_matmul may
# carry its own) and their loops' kinds.
_PAR, _RED = "parallel", "reduction"
_NAMED_GEMVS = {
    "linalg.matmul": ("[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
                      "affine_map<(d0, d1, d2) -> (d0, d1)>]", [_PAR, _PAR, _RED]),
    "linalg.vecmat": ("[affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>]",
                      [_PAR, _RED]),
    "linalg.matvec": ("[affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>]",
                      [_PAR, _RED]),
    "linalg.batch_matmul": ("[affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, "
                            "affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, "
                            "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]", [_PAR, _PAR, _PAR, _RED]),
}
# Rows of a matrix-vector product (a row reduction) per workgroup.
GEMV_ROWS = 64
# Most vectors (queries) a product of a matrix with a few vectors multiplies at once (grouped-query
# attention's heads per key): the matrix is then read once for all of them.
GEMV_QUERIES = 8


# Ops whose results data tiling packs once while compiling.
_CONSTANT_OPS = ("arith.constant", "util.global.load", "flow.tensor.constant")


@dataclasses.dataclass(frozen=True)
class Gemv:
    """A (batched) matrix-vector product as loops: its maps, the matrix operand, the loop over the matrix's
    rows that the vector does not read, the reduced loop, and each loop's kind and trip count."""

    maps: list
    matrix: int
    rows: int
    reduced: int
    iterators: list[str]
    extents: list[int]
    queries: int = -1  # the loop over several vectors, which the matrix does not read (-1: one vector)

    @property
    def matrix_inner(self) -> int:
        """The loop of the matrix's innermost (contiguous) dimension."""
        return _plain_dims(self.maps[self.matrix])[-1]


def _plain_dims(map_attr) -> list[int] | None:
    """The loops an indexing map's results are, in order; None when one is no plain loop dimension."""
    found = [_DIM.match(str(e)) for e in ir.AffineMapAttr(map_attr).value.results]
    return [int(m.group(1)) for m in found] if all(found) else None


def gemv_of(iterators: list[str], maps: list, shapes: list[list[int]]) -> Gemv | None:
    """The product's layout when loops `iterators` over operands of `shapes` (two inputs and the result,
    `maps` their indexing maps) are a matrix-vector product, batched or not: one input (the matrix) reads
    every loop, or every loop but one of at most GEMV_QUERIES trips (a few vectors), the other every loop
    but one parallel one (the rows), the result every loop but the one reduction; loops of one trip (a
    batched matmul's single row) count for nothing. Else None."""
    dims = [_plain_dims(m) for m in maps]
    if len(dims) != 3 or None in dims:
        return None
    extents = [0] * len(iterators)
    for operand_dims, shape in zip(dims, shapes):
        for d, size in zip(operand_dims, shape):
            extents[d] = size
    loops = {d for d, n in enumerate(extents) if n != 1}
    reduced = [d for d, it in enumerate(iterators) if it == _RED]
    read = [set(d) & loops for d in dims]
    if len(reduced) != 1 or reduced[0] not in loops or read[2] != loops - {reduced[0]}:
        return None
    for matrix, vector in ((0, 1), (1, 0)):
        missing, queries = loops - read[vector], loops - read[matrix]
        few = len(queries) == 1 and extents[min(queries)] <= GEMV_QUERIES and iterators[min(queries)] == _PAR
        if len(missing) == 1 and (not queries or few):
            return Gemv(maps, matrix, missing.pop(), reduced[0], iterators, extents, min(queries, default=-1))
    return None


def _multiplies_and_adds(op) -> bool:
    """Whether a linalg.generic's body is `out + in0 * in1` (or `in0 * in1 + out`), in floats."""
    body = ir.ops(op)[1:]  # walked: the block's operations would import linalg's OpViews (see loop_kinds)
    if [o.name for o in body] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return False
    args = list(op.regions[0].blocks[0].arguments)
    product, total = body[0], body[1]
    return set(product.operands) == set(args[:2]) and set(total.operands) == {args[2], product.results[0]} \
        and body[2].operands[0] == total.results[0]


def _static_f32(values) -> bool:
    """Whether every value is a tensor of static shape and f32 elements."""
    return all(isinstance(v.type, ir.RankedTensorType) and v.type.has_static_shape and str(v.type.element_type) == "f32"
               for v in values)


def gemv_at_run_time(op, constants: set) -> Gemv | None:
    """The layout of a static f32 matrix-vector product (a vecmat, matvec, batch_matmul of single rows or
    linalg.generic multiplying and adding, batched or not) whose matrix is computed when the program
    runs (not one of the `constants`, the results of _CONSTANT_OPS), else None."""
    if op.name not in _NAMED_GEMVS and op.name != "linalg.generic" or len(op.operands) != 3 \
            or len(op.results) != 1 or not _static_f32(op.operands):
        return None
    shapes = [v.type.shape for v in op.operands]
    if op.name in _NAMED_GEMVS:
        maps, iterators = _NAMED_GEMVS[op.name]
        given = op.attributes["indexing_maps"] if "indexing_maps" in op.attributes else ir.Attribute.parse(maps)
        gemv = gemv_of(iterators, list(given), shapes)
    elif "compilation_info" not in op.attributes and "lowering_config" not in op.attributes \
            and _multiplies_and_adds(op):
        gemv = gemv_of(loop_kinds(op), list(op.attributes["indexing_maps"]), shapes)
    else:
        return None
    return gemv if gemv is not None and op.operands[gemv.matrix] not in constants else None


def gemv_config(gemv: Gemv, vector_bytes: int, registers: int) -> str | None:
    """The lowering config of a matrix-vector product: one whose matrix rows are its innermost dimension
    (a vecmat) reduces over them like a column sum (_outer_config), in chunks of rows on every CPU; one
    reducing along its rows (a matvec) steps one row of up to ROW_STEP_VECTORS vectors at a time
    (row_step), GEMV_ROWS rows of a batch per workgroup. None when the rows are no whole number of
    vectors, or the matrix's innermost dimension is a batch."""
    inner, iterators, extents = gemv.matrix_inner, gemv.iterators, gemv.extents
    if gemv.queries >= 0:
        return _queries_config(gemv, vector_bytes, registers)
    if inner == gemv.rows:
        chunk = GEMV_CHUNK_ROWS if vector_bytes // 4 >= _AVX512_LANES else CHUNK_ROWS
        return _outer_config(iterators, extents, inner, extents[inner], 4, vector_bytes, registers, chunk)
    width = row_step(extents[inner], vector_bytes // 4)
    if inner != gemv.reduced or width is None:
        return None
    batch = [1 if it == _PAR else 0 for it in iterators]
    return lowering_config_text({"distribution": [GEMV_ROWS if d == gemv.rows else b for d, b in enumerate(batch)],
                    "vector_common_parallel": batch,
                    "vector_reduction": [width if d == inner else 0 for d in range(len(iterators))]})


def row_step(extent: int, lanes: int) -> int | None:
    """Elements of a row one step of a matrix-vector product reduces: ROW_STEP_VECTORS vectors, or the
    most whole vectors under that which divide the row (AVX-512's 64 do not divide a 32-column panel of
    a Cholesky factor, which data tiling then packed a strided column at a time); None below one vector."""
    return next((count * lanes for count in range(ROW_STEP_VECTORS, 0, -1) if extent % (count * lanes) == 0), None)


def _queries_config(gemv: Gemv, vector_bytes: int, registers: int) -> str | None:
    """gemv_config for a product of a matrix with a few vectors, all of them in one workgroup, so the
    matrix is read from memory once. Along the matrix's rows: each vector in turn over the workgroup's
    GEMV_ROWS rows (which stay in cache), a row of ROW_STEP_VECTORS vectors per step; stepping all the
    vectors at once made 4 x 64 blocks that took 3.8x as long. Over the rows: every step multiplies all
    the vectors, a strip of half the registers shared among them. None where that does not divide."""
    inner, iterators, extents, queries = gemv.matrix_inner, gemv.iterators, gemv.extents, gemv.queries
    count, lanes = extents[queries], vector_bytes // 4
    batch = [1 if it == _PAR else 0 for it in iterators]
    if inner == gemv.reduced:
        width = row_step(extents[inner], lanes)
        if width is None:
            return None
        distribution = [count if d == queries else GEMV_ROWS if d == gemv.rows else b for d, b in enumerate(batch)]
        return lowering_config_text({"distribution": distribution, "vector_common_parallel": batch,
                        "vector_reduction": [width if d == inner else 0 for d in range(len(iterators))]})
    step = min(registers // 2 // count * lanes, extents[inner])
    if inner != gemv.rows or step < lanes or extents[inner] % step:
        return None
    common = [count if d == queries else step if d == inner else b for d, b in enumerate(batch)]
    return lowering_config_text({"distribution": [extents[inner] if d == inner else c for d, c in enumerate(common)],
                    "vector_common_parallel": common,
                    "vector_reduction": [1 if it == _RED else 0 for it in iterators]})


def _as_reduction(op, gemv: Gemv):
    """A named product `op` as a linalg.generic of `gemv`'s loops multiplying and adding, at its place."""
    init = op.operands[2]
    f32 = ir.F32Type.get()
    iterators = ", ".join(f"#linalg.iterator_type<{it}>" for it in gemv.iterators)
    with ir.InsertionPoint(op), op.location:
        generic = ir.Operation.create("linalg.generic", results=[init.type], operands=list(op.operands),
                                      attributes={"indexing_maps": ir.ArrayAttr.get(gemv.maps),
                                                  "iterator_types": ir.Attribute.parse(f"[{iterators}]"),
                                                  "operandSegmentSizes": ir.DenseI32ArrayAttr.get([2, 1])}, regions=1)
        block = generic.regions[0].blocks.append(f32, f32, f32)
    with ir.InsertionPoint(block), op.location:
        product = ir.Operation.create("arith.mulf", results=[f32], operands=[block.arguments[0], block.arguments[1]])
        total = ir.Operation.create("arith.addf", results=[f32], operands=[block.arguments[2], product.results[0]])
        ir.Operation.create("linalg.yield", operands=[total.results[0]])
    op.results[0].replace_all_uses_with(generic.results[0])
    op.erase()
    return generic


def _feeds_wider_op(op, ops: list) -> bool:
    """Whether a linalg op among `ops` (the module's, walked) reads `op`'s result over more elements than it
    has (a rank-one update fused with the product that makes it): the product's config would leave that
    op's loops whole vectors (a Householder reflection's f32[64,64] update made one 16 KiB vector). The
    readers are found among `ops`: a use's owner is an OpView, which imports the bindings' linalg module."""
    result = op.results[0]
    size = math.prod(result.type.shape)
    return any(other.name.startswith("linalg.") and any(v == result for v in other.operands)
               and any(math.prod(r.type.shape) > size for r in other.results if isinstance(r.type, ir.ShapedType))
               for other in ops)


@register_pass
class GemvReductions(Pass):
    """Runs matrix-vector products of a run-time matrix as reductions, without data tiling's pack."""

    name = "oxla-llvmcpu-gemv-reductions"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Data tiling packs a vecmat's or matvec's matrix on every call when it is computed at run time
        (an argument): for f32[1,4096] x f32[4096,4096] on an AVX2 Zen 3 the pack took 20-24 ms of 30,
        the product 7-8, XLA's whole product 7. A linalg.generic with a lowering config is left out of
        data tiling; configured as a reduction over or along the matrix's rows (gemv_config), it reads
        the matrix once. Batched products (attention's scores and weighted sum for one query, over a
        cache) are such generics or batch_matmuls of one row per batch; matmuls of up to GEMV_QUERIES rows
        (a batch of a few inputs through weights passed in, an RNN's step) read the matrix once for all of
        them, where data tiling also packed the rows and unpacked the result (every trip of a loop)."""
        vector_bytes, registers = _vector_shape(module)
        ops = []
        ir.walk(module, ops.append)
        constants = {result for op in ops if op.name in _CONSTANT_OPS for result in op.results}
        found = [(op, gemv) for op in ops if (gemv := gemv_at_run_time(op, constants)) is not None
                 and not _feeds_wider_op(op, ops)]
        for op, gemv in found:  # all found first: replacing a named op frees the ops of its body
            config = gemv_config(gemv, vector_bytes, registers)
            if config is not None:
                generic = op if op.name == "linalg.generic" else _as_reduction(op, gemv)
                generic.attributes["compilation_info"] = _compilation_info(config)


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
        chained = chained_reductions(found)
        for i, op in enumerate(found):
            config = outer_reduction_config(op, vector_bytes, registers, i in chained)
            if config is not None:
                op.attributes["compilation_info"] = _compilation_info(config)
                _keep_products_elementwise(op)


def accumulated_product(op):
    """The `arith.mulf` whose result a reduction generic adds to its accumulator (`out + a * b`), when both
    of its factors are computed in the body rather than read; else None."""
    accumulator = list(op.regions[0].blocks[0].arguments)[-1]
    body = ir.body_ops(op)
    combiner = ir.producer(body[-1].operands[0]) if body and len(body[-1].operands) == 1 else None
    if combiner is None or combiner.name != "arith.addf" or accumulator not in list(combiner.operands):
        return None
    product = ir.producer(next(v for v in combiner.operands if v != accumulator))
    if product is None or product.name != "arith.mulf" or any(ir.producer(v) is None for v in product.operands):
        return None
    return product


def _keep_products_elementwise(op) -> None:
    """Writes the product the reduction accumulates (accumulated_product) as math.fma(a, b, -0.0), the same
    value, so MLIR's vectorizer does not make a contraction of it (module docstring)."""
    product = accumulated_product(op)
    if product is None:
        return
    element = product.results[0].type
    with ir.InsertionPoint(product), product.location:
        negative_zero = ir.Operation.create("arith.constant", results=[element],
                                            attributes={"value": ir.FloatAttr.get(element, -0.0)}).results[0]
        fused = ir.Operation.create("math.fma", results=[element],
                                    operands=[*product.operands, negative_zero]).results[0]
    product.results[0].replace_all_uses_with(fused)
    product.erase()


_LEVEL = r"(\w+) = \[([-\d, ]*)\]"
_CONFIG = re.compile(rf"#iree_cpu\.lowering_config<{_LEVEL}(?:, {_LEVEL})*>")


def tiling_levels(config: str) -> dict[str, list[int]] | None:
    """The tiling levels of a #iree_cpu.lowering_config; None for anything but plain integer levels."""
    if not _CONFIG.fullmatch(config):
        return None
    return {name: [int(v) for v in values.split(",")] for name, values in re.findall(_LEVEL, config)}


def lowering_config_text(levels: dict[str, list[int]]) -> str:
    """The #iree_cpu.lowering_config text of `levels`."""
    return "#iree_cpu.lowering_config<" + ", ".join(f"{name} = {values}" for name, values in levels.items()) + ">"


def capped_inner_config(config: str, lanes: int) -> str | None:
    """`config` with vector_inner_parallel sizes above `lanes` (and multiples of it) cut to `lanes`, else None."""
    levels = tiling_levels(config)
    inner = levels.get("vector_inner_parallel") if levels else None
    if not inner or not any(n > lanes and n % lanes == 0 for n in inner):
        return None
    levels["vector_inner_parallel"] = [lanes if n > lanes and n % lanes == 0 else n for n in inner]
    return lowering_config_text(levels)


def pack_vector_config(config: str, tile_elements: int, budget: int, fold: bool = True) -> str | None:
    """`config` (a pack's #iree_cpu.lowering_config, its inner tiles `tile_elements` each) with inner
    vector steps of more than `budget` elements cut down, and (with `fold`) steps of one tile folded
    into the common level; None when nothing changes.

    The inner level counts outer tiles: a step of n covers n * tile_elements elements. A dimension
    the common level leaves whole (0) and the inner level steps by 1 is stepped by 1 at the common
    level instead; the inner level goes when nothing is left in it.
    """
    levels = tiling_levels(config)
    inner = levels.get("vector_inner_parallel") if levels else None
    common = levels.get("vector_common_parallel") if levels else None
    if inner is None or common is None or len(inner) != len(common):
        return None
    most = max(1, budget // tile_elements)
    inner[:] = [most if n > most and n % most == 0 else n for n in inner]
    for i, (c, n) in enumerate(zip(common, inner)):
        if fold and c == 0 and n == 1:
            common[i], inner[i] = 1, 0
    if not any(inner):
        del levels["vector_inner_parallel"]
    folded = lowering_config_text(levels)
    return folded if folded != config else None


def bounded_pack_config(config: str, tile_elements: int, outer: list[int], budget: int) -> str | None:
    """`config` (a pack's lowering config; `outer` its result's outer dimensions) with inner vector
    steps of at most `budget` elements, also on dimensions the common level leaves whole and that
    hold more; None when nothing changes. Unlike pack_vector_config it folds nothing into the
    common level."""
    levels = tiling_levels(config)
    common = levels.get("vector_common_parallel") if levels else None
    if common is None or len(common) != len(outer):
        return None
    inner = levels.get("vector_inner_parallel", [0] * len(common))
    if len(inner) != len(common):
        return None
    most = max(1, budget // tile_elements)
    steps = [most if (n > most and n % most == 0) or (c == 0 and n == 0 and extent * tile_elements > budget)
             else n for c, n, extent in zip(common, inner, outer)]
    if steps == inner:
        return None
    levels["vector_inner_parallel"] = steps
    return lowering_config_text(levels)


def _lanes(func) -> int:
    """f32 lanes of one native vector of the executable target `func` is compiled for (16 on AVX-512)."""
    return _native_vector_bytes(variant_target(func)) // 4


def variant_target(op) -> str:
    """The printed executable target of the hal.executable.variant `op` is compiled for ('' outside one)."""
    while op is not None and op.name != "hal.executable.variant":
        op = op.parent
    return str(op.attributes["target"]) if op is not None else ""


def configured_ops_by_function(module) -> list[tuple[object, list]]:
    """Each func.func of the module with its ops that carry a lowering_config, in order."""
    funcs = []
    ir.walk(module, lambda op: funcs.append(op) if op.name == "func.func" else None)
    found = []
    for func in funcs:
        configured = []
        ir.walk(func, lambda op: configured.append(op) if "lowering_config" in op.attributes else None)
        found.append((func, configured))
    return found


def set_lowering_config(op, config: str | None) -> None:
    """Replaces op's lowering_config with `config` when there is one."""
    if config is not None:
        op.attributes["lowering_config"] = ir.Attribute.parse(config, context=ir.context())


def column_tile_rows(op) -> int:
    """R for a linalg.pack of a 2-D tensor into [R, 1] tiles in order (each tile a column of R rows, so
    its vectors transpose rows into columns), else 0."""
    tiles = list(ir.DenseI64ArrayAttr(op.attributes["static_inner_tiles"]))
    positions = list(ir.DenseI64ArrayAttr(op.attributes["inner_dims_pos"]))
    perm = [0, 1]
    if "outer_dims_perm" in op.attributes:
        perm = list(ir.DenseI64ArrayAttr(op.attributes["outer_dims_perm"]))
    in_order = positions == [0, 1] and perm == [0, 1]
    return tiles[0] if in_order and len(tiles) == 2 and tiles[1] == 1 < tiles[0] else 0


def row_of_tiles_config(config: str, rows: int) -> str | None:
    """`config` (a 2-D root's) with workgroups of `rows` rows where they hold a larger multiple, else None."""
    levels = tiling_levels(config)
    distribution = levels.get("distribution") if levels else None
    if not distribution or len(distribution) != 2 or distribution[0] <= rows or distribution[0] % rows:
        return None
    distribution[0] = rows
    return lowering_config_text(levels)


def _column_pack_last(configured) -> None:
    """In a dispatch with two packs, the first of column tiles, the second not: moves the column pack
    last and gives the workgroup one row of its tiles (row_of_tiles_config), where that is safe.

    IREE steps only a dispatch's last pack below the workgroup. Left whole, a column pack vectorizes as
    one transpose of the workgroup's rows: 8x256 on the transformer block's norm, whose 2048-lane shuffles
    took LLVM's VectorCombine 1.9 s. Stepped instead, its 8x8 transposes are cheap, and the other pack,
    left whole over one row of tiles, only moves whole vectors (docs/performance.md)."""
    packs = [op for op in configured if op.name == "linalg.pack"]
    roots = [op for op in configured if "distribution" in str(op.attributes["lowering_config"])]
    if len(packs) != 2 or len(roots) != 1 or column_tile_rows(packs[1]):
        return
    column, other = packs
    rows = column_tile_rows(column)
    config = row_of_tiles_config(str(roots[0].attributes["lowering_config"]), rows) if rows else None
    if config is None or _used_before(column, other):
        return
    set_lowering_config(roots[0], config)
    column.operation.move_after(other.operation)


def _used_before(op, later) -> bool:
    """Whether moving `op` after `later` would break dominance: `later` does not follow it in its block,
    or an op up to `later` uses its results."""
    ops = ir.block_ops(op)
    first = ops.index(op.operation)
    last = ops.index(later.operation) if later.operation in ops else -1
    results = list(op.operation.results)
    return last <= first or any(value == result for o in ops[first + 1:last + 1]
                                for value in o.operands for result in results)


@register_pass
class PackVectorTiles(Pass):
    """Keeps the vector steps of data-tiling dispatches within native vectors (4096-lane ones compile for seconds)."""

    name = "oxla-llvmcpu-pack-vector-tiles"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """In each function holding a configured linalg.pack: caps the packs' vector steps at a native
        vector's square of elements and other ops' inner steps at a native vector (capped_inner_config).

        With 16 lanes (AVX-512) a pack's one-tile steps fold into the common level (pack_vector_config),
        unless another op of the function reads the pack: IREE then tiles that op's common level, and
        the pack, left without inner steps, became one vector (a convolution kernel's pack feeding
        its mmt4d: 32 KiB, which IREE rejects). With fewer (AVX2), IREE steps the norm-into-matmul
        dispatch's 8x8 pack (of the residual, the matmul's accumulator) by one tile or, in most
        compiles, not at all, vectorizing a 16x256 block it then rejects as too large; folding the
        one-tile step made it do the same. There the packs keep inner steps, one tile where IREE left
        a dimension whole (bounded_pack_config), and a column pack goes last (_column_pack_last)."""
        for func, configured in configured_ops_by_function(module):
            if not any(op.name == "linalg.pack" for op in configured):
                continue
            lanes = _lanes(func)
            if lanes < _AVX512_LANES:
                _column_pack_last(configured)
            for op in configured:
                config = str(op.attributes["lowering_config"])
                if op.name != "linalg.pack":
                    set_lowering_config(op, capped_inner_config(config, lanes))
                    continue
                tiles = list(ir.DenseI64ArrayAttr(op.attributes["static_inner_tiles"]))
                if lanes >= _AVX512_LANES:
                    fold = not _read_by(op.results[0], configured)
                    set_lowering_config(op, pack_vector_config(config, math.prod(tiles), lanes * lanes, fold))
                else:
                    outer = list(op.results[0].type.shape)[:-len(tiles)]
                    set_lowering_config(op, bounded_pack_config(config, math.prod(tiles), outer, lanes * lanes))


def _read_by(value, ops) -> bool:
    """Whether one of `ops` takes `value` as an operand (found from the operands: a use's owner would
    import the bindings' linalg module)."""
    return any(operand == value for op in ops for operand in op.operands)


def panel_config(config: str, distribution: list[int]) -> str | None:
    """`config` (a 2-D pack's lowering config) with `distribution` as its workgroup level; None when
    it has no two-level distribution or already has that one."""
    levels = tiling_levels(config)
    current = levels.get("distribution") if levels else None
    if current is None or len(current) != 2 or len(distribution) != 2:
        return None
    levels["distribution"] = list(distribution)
    panels = lowering_config_text(levels)
    return panels if panels != config else None


def row_block_distribution(op) -> tuple[list[int], int] | None:
    """(distribution, workgroups) under which each workgroup of a static 2-D linalg.pack reads whole
    rows of its source, or None for packs of other layouts.

    A pack of a matmul's left operand (tiles [M0, K0] over rows and columns, in order) reads one
    panel of M0 rows: one row of outer tiles. A pack of its right operand (tiles [N0, K0] over
    columns and rows, outer dimensions swapped) reads N0 rows: every column tile of N0 / K0
    consecutive outer rows.
    """
    if op.name != "linalg.pack" or len(op.operands[0].type.shape) != 2:
        return None
    result = ir.RankedTensorType(op.results[0].type)
    if not result.has_static_shape:
        return None
    perm = list(ir.DenseI64ArrayAttr(op.attributes["outer_dims_perm"])) if "outer_dims_perm" in op.attributes else [0, 1]
    position = list(ir.DenseI64ArrayAttr(op.attributes["inner_dims_pos"]))
    tiles = list(ir.DenseI64ArrayAttr(op.attributes["static_inner_tiles"]))
    outer = list(result.shape)[:2]
    if perm == [0, 1] and position == [0, 1]:
        return [1, outer[1]], outer[0]
    if perm == [1, 0] and position == [1, 0] and tiles[1] > 0:
        rows = max(1, tiles[0] // tiles[1])
        return [outer[0], rows], -(-outer[1] // rows)
    return None


@register_pass
class PackPanels(Pass):
    """Gives each workgroup of a stand-alone matmul-operand pack whole rows of its source (bf16: 3x faster than IREE's blocks)."""

    name = "oxla-llvmcpu-pack-panels"
    anchor = "builtin.module"
    min_workgroups: int = dataclasses.field(default=4, metadata={
        "help": "leave packs that would get fewer workgroups than this to IREE (too few to share)"})

    def run(self, module) -> None:
        """Rewrites the distribution of each function whose only configured op is such a pack."""
        for _, configured in configured_ops_by_function(module):
            blocks = row_block_distribution(configured[0]) if len(configured) == 1 else None
            if blocks is not None and blocks[1] >= self.min_workgroups:
                set_lowering_config(configured[0], panel_config(str(configured[0].attributes["lowering_config"]), blocks[0]))


# Most tiles per workgroup the pass lets an mmt4d have: IREE then unpacks the workgroup's result as one
# vector block. It rejects blocks of 64 tiles (32 KiB of f32 in 16x16 tiles), and LLVM compiles those
# of 16 slowly (the transformer block and BERT 0.2-0.35 s longer than at 8, for no faster run).
MAX_WORKGROUP_TILES = 8
# The cap where element-wise consumers share the dispatch: LLVM compiles their whole-workgroup blocks
# slowly (the MLP's 8-tile ones: 1.2-1.4 s instead of 0.55-0.6 s, for 5% less run time).
MAX_FUSED_TILES = 2
# Fewest multiply-adds of a matmul the pass steps two column tiles in: below (256x256x64, 256x128x64),
# the unpack it no longer fuses made the call 5-9% slower; from 128x256x256 up, 2.5-9% faster.
MIN_MULTIPLY_ADDS = 1 << 23


def register_tile_config(config: str, lanes: int, column_tiles: int,
                         max_tiles: int = MAX_WORKGROUP_TILES) -> str | None:
    """`config` (an f32 mmt4d's lowering config, `column_tiles` in all) stepping half the rows of two
    adjacent column tiles instead of one lanes x lanes tile; None unless it steps one such tile.

    A workgroup holding an odd number of column tiles gets twice as many when they divide the total;
    None when the workgroup's tiles would then exceed `max_tiles`.
    """
    levels = tiling_levels(config)
    if levels is None or levels.get("vector_common_parallel") != [1, 1, 0, lanes, lanes, 0] or lanes % 2:
        return None
    distribution = levels.get("distribution")
    if not distribution or len(distribution) != 6 or 0 in distribution[:2]:
        return None
    if distribution[1] % 2:
        distribution[1] *= 2
    if column_tiles % distribution[1] or distribution[0] * distribution[1] > max_tiles:
        return None
    levels["vector_common_parallel"] = [1, 2, 0, lanes // 2, lanes, 0]
    return lowering_config_text(levels)


def _large_f32_mmt4d(op) -> bool:
    """Whether `op` is a linalg.mmt4d of static f32 operands and accumulator with MIN_MULTIPLY_ADDS or more."""
    if op.name != "linalg.mmt4d":
        return False
    types = [ir.RankedTensorType(v.type) for v in op.operands]
    if not all(t.has_static_shape and str(t.element_type) == "f32" for t in types):
        return False
    lhs, rhs = types[0].shape, types[1].shape  # [M1, K1, M0, K0] and [N1, K1, N0, K0]
    return math.prod(lhs) * rhs[0] * rhs[2] >= MIN_MULTIPLY_ADDS


@register_pass
class Mmt4dRegisterTiles(Pass):
    """Steps data-tiled f32 matmuls through 8 rows of two column tiles (10 loads per 16 FMAs, not 17)."""

    name = "oxla-llvmcpu-mmt4d-register-tiles"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Rewrites the mmt4d's steps in each matmul dispatch (one mmt4d, its fill, unpack and element-wise
        consumers) compiled without microkernels (which take whole tiles)."""
        for func, mmt4d, fused in _plain_f32_matmuls(module):
            columns = ir.RankedTensorType(mmt4d.operands[1].type).shape[0]
            most = MAX_FUSED_TILES if fused else MAX_WORKGROUP_TILES
            set_lowering_config(mmt4d, register_tile_config(str(mmt4d.attributes["lowering_config"]), _lanes(func), columns, most))


def _plain_f32_matmuls(module):
    """(function, mmt4d, whether element-wise consumers share the dispatch) for each matmul dispatch of
    one large f32 mmt4d with its fill, unpack and element-wise consumers, built without microkernels."""
    for func, configured in configured_ops_by_function(module):
        mmt4ds = [op for op in configured if op.name == "linalg.mmt4d"]
        if len(mmt4ds) != 1 or not all(_steps_with_mmt4d(op) for op in configured):
            continue
        if 'ukernels = "none"' in variant_target(func) and _large_f32_mmt4d(mmt4ds[0]):
            yield func, mmt4ds[0], any(op.name == "linalg.generic" for op in configured)


# Most native vectors a workgroup's result block may span when the pass gives it more row tiles: eight
# 16x16 tiles on AVX-512 (MAX_WORKGROUP_TILES), sixteen 8x8 on AVX2; twice that compiled 0.5 s longer for
# no faster run (256x4096x4096 on AVX2). With element-wise consumers the cap is MAX_FUSED_TILES' 16x16.
MAX_BLOCK_VECTORS = 128
MAX_FUSED_BLOCK_VECTORS = 32
# Fewest workgroups the pass leaves a matmul, so that two threads still share it evenly.
MIN_ROW_BLOCK_WORKGROUPS = 16
# Smallest packed right operand the pass gives more row tiles: one that outgrows a core's share of the
# last-level cache (256x2048x2048, 16 MiB, on AVX2: 71-85 -> 49-52 ms). Below, the operand streams from
# cache, and the 4 MiB GEMMs' times were within the host's run-to-run spread of IREE's.
MIN_ROW_BLOCK_RIGHT_BYTES = 8 << 20


def row_block_config(config: str, row_tiles: int, column_tiles: int, tile_vectors: int,
                     max_vectors: int = MAX_BLOCK_VECTORS) -> str | None:
    """`config` (an mmt4d's lowering config over `row_tiles` x `column_tiles` tiles of `tile_vectors`
    native vectors each) with the most row tiles per workgroup that divide `row_tiles`, keep the block
    within `max_vectors` and leave MIN_ROW_BLOCK_WORKGROUPS; None when that is no more than IREE's."""
    levels = tiling_levels(config)
    distribution = levels.get("distribution") if levels else None
    if not distribution or len(distribution) != 6 or 0 in distribution[:2] or column_tiles % distribution[1]:
        return None
    rows, columns = distribution[0], distribution[1]
    fitting = [d for d in range(rows + 1, row_tiles + 1)
               if row_tiles % d == 0 and d * columns * tile_vectors <= max_vectors
               and (row_tiles // d) * (column_tiles // columns) >= MIN_ROW_BLOCK_WORKGROUPS]
    if not fitting:
        return None
    distribution[0] = max(fitting)
    return lowering_config_text(levels)


@register_pass
class Mmt4dRowBlocks(Pass):
    """Gives f32 matmul workgroups over a large right operand more row tiles, so it streams from memory fewer times."""

    name = "oxla-llvmcpu-mmt4d-row-blocks"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Rewrites the workgroup level of each matmul dispatch's mmt4d (as the register-tile pass finds them)."""
        for func, mmt4d, fused in _plain_f32_matmuls(module):
            lhs, rhs = (ir.RankedTensorType(v.type).shape for v in mmt4d.operands[:2])
            if 4 * math.prod(rhs) < MIN_ROW_BLOCK_RIGHT_BYTES:
                continue
            most = MAX_FUSED_BLOCK_VECTORS if fused else MAX_BLOCK_VECTORS
            config = str(mmt4d.attributes["lowering_config"])
            set_lowering_config(mmt4d, row_block_config(config, lhs[0], rhs[0], lhs[2] * rhs[2] // _lanes(func), most))


# Ops a matmul dispatch may hold besides its mmt4d for the pass to change the mmt4d's steps: IREE
# vectorizes them as one block per workgroup (MAX_WORKGROUP_TILES keeps that small).
_ALONGSIDE_MMT4D = ("linalg.mmt4d", "linalg.fill", "linalg.unpack", "iree_linalg_ext.map_store")


def _steps_with_mmt4d(op) -> bool:
    """Whether `op` may share a dispatch whose mmt4d the pass steps: the mmt4d, its fill, unpack,
    relayout, or an element-wise linalg.generic (a reduction would be vectorized whole)."""
    if op.name == "linalg.generic":
        return all(kind == "parallel" for kind in loop_kinds(op))
    return op.name in _ALONGSIDE_MMT4D


# One step of an f32 convolution whose feature step is under a native vector: this many output pixels
# of CONV_STEP_VECTORS vectors of features, one input channel (AVX2: 4 x 16, 8 accumulators; 8 x 8
# and 4 x 8 ran slower, 8 x 16 spilled); the reduction loop steps CONV_STEP_CHANNELS channels, in
# order, where they divide the input's (8 ran within noise of 4; both 7-20% faster than 1).
CONV_STEP_PIXELS = 4
CONV_STEP_VECTORS = 2
CONV_STEP_CHANNELS = 4
_CONV_LOOPS = ["parallel"] * 4 + ["reduction"] * 3  # n, oh, ow, f; kh, kw, c


def conv_register_config(config: str, lanes: int, channels: int) -> str | None:
    """`config` (a 2-D NHWC convolution's, over n, oh, ow, f, kh, kw, c, of `channels` input channels)
    stepping CONV_STEP_PIXELS pixels of CONV_STEP_VECTORS vectors of `lanes` features and
    CONV_STEP_CHANNELS channels (else IREE's channel step where it divides `channels`, else one), when
    its feature step is narrower than a vector, or, under 16 lanes, one vector over twice
    CONV_STEP_PIXELS pixels or more (as many accumulators, more broadcasts: a ResNet stem's 7x7 over 3
    channels on AVX2), and its workgroup tile divides into those steps; else None."""
    levels = tiling_levels(config)
    if not levels or any(len(levels.get(name, ())) != 7 for name in
                         ("distribution", "vector_common_parallel", "vector_reduction")):
        return None
    pixels, features = levels["distribution"][2:4]
    step_pixels, step_features = levels["vector_common_parallel"][2:4]
    width = CONV_STEP_VECTORS * lanes
    narrow = step_features < lanes
    tall = step_features == lanes < _AVX512_LANES and step_pixels >= 2 * CONV_STEP_PIXELS
    if not (narrow or tall) or pixels % CONV_STEP_PIXELS or features % width:
        return None
    levels["vector_common_parallel"] = [1, 1, CONV_STEP_PIXELS, width, 0, 0, 0]
    iree_step = levels["vector_reduction"][6]
    step = next((c for c in (CONV_STEP_CHANNELS, iree_step) if c > 0 and channels > 0 and channels % c == 0), 1)
    levels["vector_reduction"] = [0, 0, 0, 0, 1, 1, step]
    return lowering_config_text(levels)


@register_pass
class ConvRegisterTiles(Pass):
    """Steps f32 convolutions by whole vectors of output features where IREE steps parts of one (AVX2)."""

    name = "oxla-llvmcpu-conv-register-tiles"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Rewrites the steps of each f32 convolution compiled by IREE's ConvTileAndDecomposeExpert
        (conv_register_config)."""
        for func, configured in configured_ops_by_function(module):
            info = func.attributes["translation_info"] if "translation_info" in func.attributes else None
            if info is None or "ConvTileAndDecomposeExpert" not in str(info):
                continue
            for op in configured:
                if op.name == "linalg.generic" and loop_kinds(op) == _CONV_LOOPS and \
                        str(ir.ShapedType(op.results[0].type).element_type) == "f32":
                    channels = ir.ShapedType(op.operands[0].type).shape[-1]
                    set_lowering_config(op, conv_register_config(str(op.attributes["lowering_config"]), _lanes(func), channels))


ROW_STEP_VECTORS = 4  # vectors of one row per step (AVX2: 32 f32; 64 ran within noise of it)


def row_reduction_config(config: str, lanes: int, extent: int) -> str | None:
    """`config` (a [parallel, reduction] reduction's) stepping one row of ROW_STEP_VECTORS vectors of
    `lanes` where IREE steps several rows of one vector; None when it does not, or when the row of
    `extent` elements is no whole number of steps."""
    levels = tiling_levels(config)
    if not levels or len(levels.get("vector_common_parallel", ())) != 2 or len(
            levels.get("vector_reduction", ())) != 2:
        return None
    rows, width = levels["vector_common_parallel"][0], ROW_STEP_VECTORS * lanes
    if rows <= 1 or levels["vector_reduction"][1] != lanes or extent % width:
        return None
    levels["vector_common_parallel"] = [1, 0]
    levels["vector_reduction"] = [0, width]
    return lowering_config_text(levels)


def whole_reduction_config(config: str, lanes: int, extent: int) -> str | None:
    """`config` (a [reduction] reduction's, to one value) stepping ROW_STEP_VECTORS vectors of `lanes`
    where IREE steps one, whose one accumulator made each step wait for the last; None when it does not,
    or when the `extent` elements are no whole number of steps."""
    levels = tiling_levels(config)
    width = ROW_STEP_VECTORS * lanes
    if not levels or levels.get("vector_reduction") != [lanes] or extent % width:
        return None
    levels["vector_reduction"] = [width]
    return lowering_config_text(levels)


# The reductions RowReductionSteps steps: their loops and how.
_STEPPED_REDUCTIONS = {("parallel", "reduction"): row_reduction_config, ("reduction",): whole_reduction_config}


@register_pass
class RowReductionSteps(Pass):
    """Steps row reductions one row of four vectors at a time on CPUs under 16 lanes (AVX2)."""

    name = "oxla-llvmcpu-row-reduction-steps"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Rewrites the steps of the innermost reductions (of rows, or of everything to one value) of each
        dispatch of fills, such reductions and element-wise ops (row_reduction_config,
        whole_reduction_config): all of them, or none when one does not divide."""
        for func, configured in configured_ops_by_function(module):
            lanes = _lanes(func)
            if lanes >= _AVX512_LANES or any(op.name not in ("linalg.generic", "linalg.fill") for op in configured):
                continue
            generics = [op for op in configured if op.name == "linalg.generic"]
            reductions = [op for op in generics if tuple(loop_kinds(op)) in _STEPPED_REDUCTIONS]
            if not reductions or any(set(loop_kinds(op)) - {"parallel"} for op in generics if op not in reductions):
                continue
            strided = strided_loads(func)
            if any(_reads_strided_rows(op, strided) for op in reductions):
                continue
            configs = [_STEPPED_REDUCTIONS[tuple(loop_kinds(op))](str(op.attributes["lowering_config"]), lanes,
                                                                  _loop_extents(op)[-1])
                       for op in reductions]
            if None not in configs:
                for op, config in zip(reductions, configs):
                    set_lowering_config(op, config)


ELEMENTWISE_STEP_VECTORS = 2  # vectors per step of an element-wise dispatch on AVX2
# Vectors per step of a gather's row copies on AVX2 (f32[32000,512][4096 ids] on a Zen 3: 0.70 -> 0.49 ms
# at 4, 0.48 at 8).
GATHER_STEP_VECTORS = 4


def elementwise_step_config(config: str, lanes: int, vectors: int = ELEMENTWISE_STEP_VECTORS) -> str | None:
    """`config` (an element-wise root's) stepping `vectors` vectors of `lanes` where IREE steps one; None
    when it does not, or when its workgroups hold no whole number of such steps."""
    levels = tiling_levels(config)
    if not levels or set(levels) != {"distribution", "vector_common_parallel"}:
        return None
    common, distribution = levels["vector_common_parallel"], levels["distribution"]
    width = vectors * lanes
    if len(common) != len(distribution) or common[-1] != lanes or distribution[-1] <= 0 or distribution[-1] % width:
        return None
    common[-1] = width
    return lowering_config_text(levels)


# Fewest workgroups whole_vector_config leaves a dispatch (where IREE's tiles gave it more).
MIN_WORKGROUPS = 8


def _workgroups(extents: list[int], distribution: list[int]) -> int:
    """How many workgroups tiles of `distribution` (0: the whole loop) make of loops of `extents`."""
    return math.prod(-(-extent // tile) for extent, tile in zip(extents, distribution) if tile > 0)


# Narrowest vector step whole_vector_config takes.
MIN_WHOLE_STEP = 4
# Longest row (bytes of the result) whole_row_config gives a workgroup whole: rows of 16384 f32 (64 KiB)
# measured as fast whole as in IREE's 64-wide strips or faster (AVX2 Zen 3: bias and relu over
# f32[256,16384] 2.46 -> 1.43 ms).
MAX_WHOLE_ROW_BYTES = 64 << 10


def _whole_step(extent: int, step: int) -> int:
    """`step` halved until it divides `extent` (no narrower than MIN_WHOLE_STEP), else 0."""
    while step >= MIN_WHOLE_STEP and extent % step:
        step //= 2
    return step if step >= MIN_WHOLE_STEP else 0


def _element_levels(config: str, extents: list[int]) -> dict[str, list[int]] | None:
    """The levels of an element-wise root's `config` over loops of `extents`, when it has just a
    distribution and a vector step, and tiles its innermost loop at both."""
    levels = tiling_levels(config)
    if not levels or set(levels) != {"distribution", "vector_common_parallel"}:
        return None
    distribution, common = levels["distribution"], levels["vector_common_parallel"]
    if not len(distribution) == len(common) == len(extents) or min(distribution[-1], common[-1]) <= 0:
        return None
    return levels


def whole_row_config(config: str, extents: list[int], element_bytes: int) -> str | None:
    """`config` (an element-wise root's, over loops of `extents`, its result's elements `element_bytes`
    each) with workgroups that span whole rows (the innermost loop) of up to MAX_WHOLE_ROW_BYTES, where
    IREE's cut them into strips (64 of 512 columns): a workgroup then reads and writes one contiguous
    stretch instead of 256 bytes of every row, which the hardware prefetchers followed poorly (bias and
    relu over f32[4096,512] on an AVX2 Zen 3: 0.82 -> 0.43 ms). The vector step is halved until it
    divides the row (whole_vector_config); the row tile halved until the dispatch keeps as many
    workgroups as IREE's gave it, up to MIN_WORKGROUPS. None when rows are whole already or too long."""
    levels = _element_levels(config, extents)
    if levels is None or len(extents) < 2:
        return None
    distribution, common = levels["distribution"], levels["vector_common_parallel"]
    extent = extents[-1]
    if distribution[-1] >= extent or extent * element_bytes > MAX_WHOLE_ROW_BYTES:
        return None
    fewest = min(_workgroups(extents, distribution), MIN_WORKGROUPS)
    distribution[-1], common[-1] = extent, _whole_step(extent, common[-1]) or common[-1]
    rows = len(extents) - 2
    if distribution[rows] == 0:
        distribution[rows] = extents[rows]
    while _workgroups(extents, distribution) < fewest and distribution[rows] % 2 == 0 \
            and distribution[rows] // 2 >= max(common[rows], 1):
        distribution[rows] //= 2
    return lowering_config_text(levels)


def whole_vector_config(config: str, extents: list[int]) -> str | None:
    """`config` (an element-wise root's, over loops of `extents`) with its innermost workgroup tile a whole
    number of vector steps where IREE's leaves a remainder in every workgroup (1000 columns in tiles of
    50, stepped by 16): the widest divisor of the loop that is a multiple of the step and keeps at least
    MIN_WORKGROUPS workgroups (IREE's count, if that was fewer); the step halved until it divides the loop
    (to 8 for 1000 columns; no narrower than MIN_WHOLE_STEP). None when IREE's tile is whole already or
    no such tile exists."""
    levels = _element_levels(config, extents)
    if levels is None or levels["distribution"][-1] % levels["vector_common_parallel"][-1] == 0:
        return None
    distribution, common = levels["distribution"], levels["vector_common_parallel"]
    step = _whole_step(extents[-1], common[-1])
    if not step:
        return None
    fewest = min(_workgroups(extents, distribution), MIN_WORKGROUPS)
    for width in range(extents[-1], 0, -step):
        if extents[-1] % width == 0 and _workgroups(extents, distribution[:-1] + [width]) >= fewest:
            distribution[-1], common[-1] = width, step
            return lowering_config_text(levels)
    return None


def _elementwise(op, *, buffers: bool = False) -> bool:
    """Whether `op` is a linalg.generic of parallel loops writing its result in loop order; with `buffers`,
    also one writing a memref (the copy dispatches IREE builds on buffers: a concatenation's parts)."""
    if op.name != "linalg.generic" or set(loop_kinds(op)) != {"parallel"}:
        return False
    outputs = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))[1]
    if len(op.results) != 1 and not (buffers and not op.results and outputs == 1):
        return False
    written = _plain_dims(list(op.attributes["indexing_maps"])[-1])
    return written == list(range(len(loop_kinds(op))))


def _reads_in_order(op) -> bool:
    """Whether every input of a linalg.generic reads its loops in order (broadcasts, no transposes): a
    transposed operand is read across rows, which wide workgroups would stride through."""
    maps = list(op.attributes["indexing_maps"])[:-1]
    dims = [_plain_dims(m) for m in maps]
    return all(d is not None and d == sorted(d) for d in dims)


def _result_bytes(op) -> int:
    """Bytes of one element of what an op writes, its last operand (4 for types _ELEMENT_BYTES lacks)."""
    return _ELEMENT_BYTES.get(str(ir.ShapedType(op.operands[-1].type).element_type), 4)


@register_pass
class WholeVectorWorkgroups(Pass):
    """Gives element-wise dispatches workgroups of whole rows, or at least whole vector steps."""

    name = "oxla-llvmcpu-whole-vector-workgroups"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """IREE tiles an element-wise dispatch over rows of 1000 (jax.nn.one_hot into 1000 classes) in
        workgroups 50 wide, stepped by vectors of 16: every row of every workgroup ends in a remainder of
        2 done element by element; and a bias added to rows of 512 in strips of 64. Rewrites the tiles
        of each dispatch that is one such op: whole rows where its inputs read in order
        (whole_row_config), else whole vector steps (whole_vector_config)."""
        for _, configured in configured_ops_by_function(module):
            if len(configured) == 1 and _elementwise(configured[0], buffers=True):
                op = configured[0]
                config, extents = str(op.attributes["lowering_config"]), _loop_extents(op)
                rows = whole_row_config(config, extents, _result_bytes(op)) if _reads_in_order(op) else None
                set_lowering_config(op, rows or whole_vector_config(config, extents))


def transposed_step_config(config: str, inner_loop: int, lanes: int) -> str | None:
    """`config` (an element-wise root's whose result's innermost loop is its last, and one of whose
    inputs has loop `inner_loop` innermost) stepping blocks of `lanes` x `lanes` over those two loops,
    as IREE steps a plain transpose; None when it does already, or when its workgroups hold no whole
    number of such blocks."""
    levels = tiling_levels(config)
    if not levels or set(levels) != {"distribution", "vector_common_parallel"}:
        return None
    distribution, common = levels["distribution"], levels["vector_common_parallel"]
    last = len(common) - 1
    if len(distribution) != len(common) or inner_loop == last:
        return None
    if any(distribution[d] <= 0 or distribution[d] % lanes for d in (inner_loop, last)):
        return None
    if common[inner_loop] == common[last] == lanes:
        return None
    common[inner_loop] = common[last] = lanes
    return lowering_config_text(levels)


def _transposed_inner_loop(op) -> int | None:
    """The loop innermost in every input of an element-wise linalg.generic that reads its last loop
    across rows (a transposed operand), when there are such inputs, they agree, and every operand has
    32-bit elements; else None."""
    last = len(loop_kinds(op)) - 1
    inner = set()
    for map_attr in list(op.attributes["indexing_maps"])[:-1]:
        dims = _plain_dims(map_attr)
        if dims is None:
            return None
        if last in dims and dims[-1] != last:
            inner.add(dims[-1])
    values = [*op.operands, *op.results]
    if any(_ELEMENT_BYTES.get(str(ir.RankedTensorType(v.type).element_type)) != 4 for v in values):
        return None
    return inner.pop() if len(inner) == 1 else None


@register_pass
class TransposeSteps(Pass):
    """Steps element-wise dispatches that read an operand transposed by square blocks, as IREE steps a transpose."""

    name = "oxla-llvmcpu-transpose-steps"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """IREE steps a plain transpose by 8 x 8 blocks on AVX2 (16 x 16 on AVX-512), shuffled in
        registers, but an element-wise op with a transposed operand (`x + y.T`) by one row of 8, which
        reads that operand one element at a time, 8 KiB apart. Rewrites the steps of each dispatch
        that is one such op (transposed_step_config)."""
        for func, configured in configured_ops_by_function(module):
            if len(configured) == 1 and _elementwise(configured[0]):
                op = configured[0]
                inner = _transposed_inner_loop(op)
                if inner is not None:
                    set_lowering_config(op, transposed_step_config(str(op.attributes["lowering_config"]), inner, _lanes(func)))


# Math ops that cost no more than an add; every other math op, and a division, is a long chain of
# dependent instructions (or one slow one) per element.
_CHEAP_MATH = frozenset({"math.absf", "math.absi", "math.copysign", "math.fma"})


def _gathers_along_rows(op) -> bool:
    """Whether `op`'s body gathers (tensor.extract) and every extract whose indices come from data (its
    inputs or another extract) has a last index that varies along the innermost loop: rows copied or
    permuted (an embedding lookup, a sort's permutation), not one gathered element broadcast along the
    row, which stepped four vectors wide ran 1.2x slower (in lax.top_k)."""
    innermost = len(loop_kinds(op)) - 1
    body = op.regions[0].blocks[0]
    flags = {argument: {"data"} for argument in body.arguments}  # what each value comes from: data, the innermost index

    def sources(values) -> set[str]:
        return set().union(*(flags.get(value, set()) for value in values))

    gathers = False
    for child in ir.ops(op)[1:]:  # the body's ops (walked: iterating the block would import linalg's OpViews)
        found = sources(child.operands)
        if child.name == "linalg.index" and ir.IntegerAttr(child.attributes["dim"]).value == innermost:
            found.add("inner")
        elif child.name == "tensor.extract" and len(child.operands) > 1:
            gathers = True
            if "data" in sources(list(child.operands)[1:]) and "inner" not in sources([child.operands[-1]]):
                return False
            found.add("data")
        for result in child.results:
            flags[result] = found
    return gathers


def _long_latency(name: str) -> bool:
    """Whether an op in an element-wise body is transcendental math or a division."""
    return (name.startswith("math.") and name not in _CHEAP_MATH) or name in ("arith.divf", "arith.remf")


# Ops of an element-wise body from which its own arithmetic, not its loads and stores, bounds it: oxla's
# f32 expm1 (exact two-sums, 40 ops) ran 0.90x as long in two-vector steps.
_COMPUTE_BOUND_OPS = 32


def strided_loads(func) -> list:
    """The values `func` loads (iree_codegen.load_from_buffer) from memory whose innermost elements are not
    adjacent (a column of a batch of matrices). Found by walking rather than from each operand's producer,
    which would import the bindings' linalg module (see loop_kinds)."""
    found = []

    def visit(op):
        if op.name == "iree_codegen.load_from_buffer":
            strides, _ = ir.MemRefType(op.operands[0].type).get_strides_and_offset()
            if strides and strides[-1] != 1:
                found.append(op.results[0])

    ir.walk(func, visit)
    return found


def _reads_strided_rows(op, strided: list) -> bool:
    """Whether `op` reads one of the `strided` values (strided_loads) along its innermost loop: IREE inserts
    each such element into the vector at a computed lane, and a vector of several registers then goes
    through the stack for every element."""
    innermost = len(loop_kinds(op)) - 1
    return any(_last_dim(map_attr) == innermost and any(operand == value for value in strided)
               for map_attr, operand in zip(op.attributes["indexing_maps"], op.operands))


def _step_vectors(op, strided: list) -> int | None:
    """Vectors a step of an all-parallel generic: two where its body does transcendental math or division,
    four where it gathers along rows, two where it does enough other arithmetic that its dependency chains,
    not memory, set its speed; None (IREE's one) elsewhere, and wherever it reads strided rows, which
    cost more the wider the step (_reads_strided_rows)."""
    if _reads_strided_rows(op, strided):
        return None
    body = ir.ops(op)
    if any(_long_latency(child.name) for child in body):
        return ELEMENTWISE_STEP_VECTORS
    if _gathers_along_rows(op):
        return GATHER_STEP_VECTORS
    return ELEMENTWISE_STEP_VECTORS if len(body) >= _COMPUTE_BOUND_OPS else None


@register_pass
class ElementwiseSteps(Pass):
    """Steps element-wise dispatches two vectors at a time, gathers four, on CPUs under 16 lanes (AVX2)."""

    name = "oxla-llvmcpu-elementwise-steps"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Rewrites the steps of each dispatch that is one all-parallel linalg.generic doing math or
        division, gathering along rows (_gathers_along_rows) or long arithmetic, per _step_vectors and
        elementwise_step_config; loads and stores bound the rest either way."""
        for func, configured in configured_ops_by_function(module):
            lanes = _lanes(func)
            if lanes >= _AVX512_LANES or len(configured) != 1 or configured[0].name != "linalg.generic":
                continue
            op = configured[0]
            if set(loop_kinds(op)) != {"parallel"}:
                continue
            vectors = _step_vectors(op, strided_loads(func))
            if vectors is not None:
                set_lowering_config(op, elementwise_step_config(str(op.attributes["lowering_config"]), lanes, vectors))
