"""oxla-llvmcpu-bf16-matmul-kernel: bf16 matmuls through oxla's own AVX-512 BF16 dispatch.

IREE 3.13 runs a data-tiled bf16 matmul through its mmt4d microkernel,
which accumulates one 16x16 tile per step of two K: one vector of the
right operand and sixteen broadcasts of the left, 17 loads for 16
`vdpbf16ps`. That bounds it below the core's peak: the bf16 GEMM 1024^3
spends 4.6 ms of a 4.8 ms call in it (XLA: 4.3 ms).

This pass, run on StableHLO before IREE's input phase, replaces each large
bf16 x bf16 -> f32 matrix product by a dispatch oxla writes itself (an
IREE `stream.executable` in vector, scf and LLVM ops):
- it steps 8 rows of 32 columns: 16 accumulators, 10 loads per 16
  `vdpbf16ps`;
- it reads the left operand in place, broadcasting each row's pair of K
  values, and writes the result rows in place (no pack, no unpack);
- the right operand is packed once into 32-column panels of K pairs by a
  StableHLO reshape and transpose.
The products and their order are the microkernel's (the same instruction
over the same K pairs), so the results are bit for bit the same; the GEMM
takes 4.4 ms (docs/performance.md).

The pass applies where every executable target of the module's
`hal.device.targets` is an x86-64 CPU with `+avx512bf16`, to dot_general
(or dot) ops with a row-major left operand [M, K], a right operand [K, N]
or [N, K], no batch dimensions, an f32 result, M a multiple of 8, N of 32,
K of 2, and at least `min-multiply-adds` multiply-adds. Anything else is
left to IREE.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from oxla import ir
from oxla.dialects import stablehlo  # noqa: F401  (registers the op classes that op.opview returns)
from oxla.transforms.cpu_tiles import target_text
from oxla.transforms.registry import Pass, register_pass

ROWS, COLUMNS, LANES = 8, 32, 16  # register tile: 8 rows of two 16-lane f32 vectors
# Workgroup tiles, largest first: a workgroup walks its 32-column panels of the packed right operand
# (512 columns: 512 KiB of bf16 at K = 1024, within L2) and, for each, its 8-row blocks of the left.
WORKGROUP_ROWS = (64, 32, 16, 8)
WORKGROUP_COLUMNS = (512, 256, 128, 64, 32)
DOT_INTRINSIC = "llvm.x86.avx512bf16.dpbf16ps.512"


@dataclass(frozen=True)
class MatmulShape:
    """A matmul the kernel takes: [M, K] x [K, N] (or [N, K] when rhs_transposed) -> [M, N] f32."""

    m: int
    n: int
    k: int
    rhs_transposed: bool

    @property
    def symbol(self) -> str:
        """The executable's symbol: one per shape, shared by both right-operand layouts."""
        return f"oxla_bf16_matmul_{self.m}x{self.n}x{self.k}"

    @property
    def caller(self) -> str:
        """The private function that packs the right operand and dispatches the kernel."""
        return f"{self.symbol}{'_nk' if self.rhs_transposed else '_kn'}"


def bf16_targets(module) -> bool:
    """Whether every executable target in the module's device targets is x86-64 with AVX-512 BF16."""
    targets = target_text(module).split("#hal.executable.target<")[1:]
    return bool(targets) and all(
        t.startswith('"llvm-cpu"') and 'target_triple = "x86_64' in t and "+avx512bf16" in t for t in targets)


def _shape(value) -> tuple[list[int], str] | None:
    """(static shape, element type) of a ranked tensor value, else None."""
    try:
        shaped = ir.RankedTensorType(value.type)
    except ValueError:
        return None
    return (list(shaped.shape), str(shaped.element_type)) if shaped.has_static_shape else None


def _contracting(op) -> tuple[list, list, list, list] | None:
    """(lhs batching, rhs batching, lhs contracting, rhs contracting) of a dot or dot_general, else None
    when it has an algorithm (a product precision the kernel may not meet)."""
    if op.name == "stablehlo.dot":
        return [], [], [1], [0]
    if "algorithm" in op.attributes:
        return None
    dn = op.opview.dot_dimension_numbers
    return (list(dn.lhs_batching_dimensions), list(dn.rhs_batching_dimensions),
            list(dn.lhs_contracting_dimensions), list(dn.rhs_contracting_dimensions))


def matmul_shape(op, min_multiply_adds: int = 0) -> MatmulShape | None:
    """The kernel's view of a dot / dot_general, or None when the kernel does not take it."""
    numbers = _contracting(op)
    shapes = [_shape(v) for v in (*list(op.operands)[:2], op.results[0])]
    if numbers is None or None in shapes:
        return None
    (lhs, lhs_type), (rhs, rhs_type), (_, result_type) = shapes
    if (lhs_type, rhs_type, result_type) != ("bf16", "bf16", "f32") or len(lhs) != 2 or len(rhs) != 2:
        return None
    lhs_batch, rhs_batch, lhs_sum, rhs_sum = numbers
    if lhs_batch or rhs_batch or lhs_sum != [1] or rhs_sum not in ([0], [1]):
        return None
    m, k = lhs
    transposed = rhs_sum == [1]
    n = rhs[0] if transposed else rhs[1]
    if m % ROWS or n % COLUMNS or k % 2 or m * n * k < min_multiply_adds:
        return None
    return MatmulShape(m, n, k, transposed)


def _largest_divisor(extent: int, choices: tuple[int, ...]) -> int:
    return next(c for c in choices if extent % c == 0)


def kernel_executable(shape: MatmulShape) -> str:
    """The kernel's `stream.executable` for one shape, as MLIR text.

    Bindings: the left operand as i32 pairs [M, K/2], the packed right
    operand [N/32, K/2, 32] (32 columns of one K pair per row), the result
    [M, N] f32. Workgroup (x, y) owns a block of columns and one of rows.
    """
    m, n, pairs = shape.m, shape.n, shape.k // 2
    wg_rows, wg_cols = _largest_divisor(m, WORKGROUP_ROWS), _largest_divisor(n, WORKGROUP_COLUMNS)
    lhs, rhs, out = f"memref<{m}x{pairs}xi32>", f"memref<{n // COLUMNS}x{pairs}x{COLUMNS}xi32>", f"memref<{m}x{n}xf32>"
    acc = "vector<16xf32>"
    accs = range(2 * ROWS)
    body = [
        f"      %v{h} = vector.load %rhs[%j, %k, %c{h * LANES}] : {rhs}, vector<16xi32>\n"
        f"      %w{h} = vector.bitcast %v{h} : vector<16xi32> to vector<32xbf16>" for h in range(2)]
    for r in range(ROWS):
        body.append(f"      %x{r} = memref.load %lhs[%row{r}, %k] : {lhs}\n"
                    f"      %y{r} = vector.broadcast %x{r} : i32 to vector<16xi32>\n"
                    f"      %z{r} = vector.bitcast %y{r} : vector<16xi32> to vector<32xbf16>")
        body += [f'      %n{2 * r + h} = llvm.call_intrinsic "{DOT_INTRINSIC}"(%p{2 * r + h}, %z{r}, %w{h}) '
                 f": ({acc}, vector<32xbf16>, vector<32xbf16>) -> {acc}" for h in range(2)]
    rows = "\n".join(f"    %row{r} = arith.addi %i, %c{r} : index" for r in range(ROWS))
    stores = "\n".join(f"    vector.store %sum#{2 * r + h}, %out[%row{r}, %col{h}] : {out}, {acc}"
                       for r in range(ROWS) for h in range(2))
    constants = "\n".join(f"  %c{c} = arith.constant {c} : index" for c in sorted({*range(ROWS), LANES}))
    return f"""stream.executable private @{shape.symbol} {{
stream.executable.export public @{shape.symbol} workgroups() -> (index, index, index) {{
  %x = arith.constant {n // wg_cols} : index
  %y = arith.constant {m // wg_rows} : index
  %one = arith.constant 1 : index
  stream.return %x, %y, %one : index, index, index
}}
builtin.module {{
func.func @{shape.symbol}(%lhs_binding: !stream.binding, %rhs_binding: !stream.binding, %out_binding: !stream.binding) {{
{constants}
  %panels = arith.constant {wg_cols // COLUMNS} : index
  %block = arith.constant {wg_rows} : index
  %rows = arith.constant {ROWS} : index
  %columns = arith.constant {COLUMNS} : index
  %pairs = arith.constant {pairs} : index
  %zero = arith.constant dense<0.0> : {acc}
  %lhs = stream.binding.subspan %lhs_binding[%c0] : !stream.binding -> {lhs}
  %rhs = stream.binding.subspan %rhs_binding[%c0] : !stream.binding -> {rhs}
  %out = stream.binding.subspan %out_binding[%c0] : !stream.binding -> {out}
  %wx = stream.dispatch.workgroup.id[0] : index
  %wy = stream.dispatch.workgroup.id[1] : index
  %j0 = arith.muli %wx, %panels : index
  %j1 = arith.addi %j0, %panels : index
  %i0 = arith.muli %wy, %block : index
  %i1 = arith.addi %i0, %block : index
  scf.for %j = %j0 to %j1 step %c1 {{
   scf.for %i = %i0 to %i1 step %rows {{
{rows}
    %sum:{2 * ROWS} = scf.for %k = %c0 to %pairs step %c1 iter_args({", ".join(f"%p{t} = %zero" for t in accs)}) -> ({", ".join([acc] * len(accs))}) {{
{chr(10).join(body)}
      scf.yield {", ".join(f"%n{t}" for t in accs)} : {", ".join([acc] * len(accs))}
    }}
    %col0 = arith.muli %j, %columns : index
    %col1 = arith.addi %col0, %c{LANES} : index
{stores}
   }}
  }}
  return
}}
}}
}}"""


def kernel_caller(shape: MatmulShape) -> str:
    """The private function that packs the right operand and dispatches the kernel, as MLIR text."""
    m, n, k, pairs, panels = shape.m, shape.n, shape.k, shape.k // 2, shape.n // COLUMNS
    words = f"tensor<{panels}x{pairs}x{COLUMNS}xi32>"
    if shape.rhs_transposed:  # [N, K] as K pairs: [N/32, 32, K/2] -> [N/32, K/2, 32]
        pack = f"""  %rhs_pairs = flow.tensor.bitcast %rhs : tensor<{n}x{k}xbf16> -> tensor<{n}x{pairs}xi32>
  %split = stablehlo.reshape %rhs_pairs : (tensor<{n}x{pairs}xi32>) -> tensor<{panels}x{COLUMNS}x{pairs}xi32>
  %panels = stablehlo.transpose %split, dims = [0, 2, 1] : (tensor<{panels}x{COLUMNS}x{pairs}xi32>) -> {words}"""
        rhs = f"tensor<{n}x{k}xbf16>"
    else:  # [K, N] -> [K/2, 2, N/32, 32] -> [N/32, K/2, 32, 2]
        split, packed = f"tensor<{pairs}x2x{panels}x{COLUMNS}xbf16>", f"tensor<{panels}x{pairs}x{COLUMNS}x2xbf16>"
        pack = f"""  %split = stablehlo.reshape %rhs : (tensor<{k}x{n}xbf16>) -> {split}
  %packed = stablehlo.transpose %split, dims = [2, 0, 3, 1] : ({split}) -> {packed}
  %panels = flow.tensor.bitcast %packed : {packed} -> {words}"""
        rhs = f"tensor<{k}x{n}xbf16>"
    return f"""func.func private @{shape.caller}(%lhs: tensor<{m}x{k}xbf16>, %rhs: {rhs}) -> tensor<{m}x{n}xf32> {{
  %lhs_pairs = flow.tensor.bitcast %lhs : tensor<{m}x{k}xbf16> -> tensor<{m}x{pairs}xi32>
{pack}
  %out = flow.dispatch @{shape.symbol}::@{shape.symbol}(%lhs_pairs, %panels) : (tensor<{m}x{pairs}xi32>, {words}) -> tensor<{m}x{n}xf32>
  return %out : tensor<{m}x{n}xf32>
}}"""


def _add_definitions(module, texts: list[str]) -> None:
    """Parses top-level ops from text and appends them to the module's body."""
    parsed = ir.Module.parse("\n".join(texts), module.context)
    body = module.regions[0].blocks[0]
    for op in list(parsed.body.operations):
        op = op.operation
        op.detach_from_parent()
        body.append(op)


# Fewest multiply-adds of a matmul the kernel takes; smaller ones stay with IREE, whose dispatch can fuse
# the matmul's element-wise producers and consumers (see docs/performance.md).
MIN_MULTIPLY_ADDS = 1 << 23


@register_pass
class Bf16MatmulKernel(Pass):
    """Runs large bf16 matmuls through oxla's AVX-512 BF16 dispatch (8x32 register tile, 10 loads per 16 dots)."""

    name = "oxla-llvmcpu-bf16-matmul-kernel"
    anchor = "builtin.module"
    min_multiply_adds: int = dataclasses.field(default=MIN_MULTIPLY_ADDS, metadata={
        "help": "leave smaller matmuls to IREE, whose dispatches fuse their producers and consumers"})

    def run(self, module) -> None:
        """Replaces each dot the kernel takes by a call of its shape's caller (added once per shape)."""
        if not bf16_targets(module):
            return
        done: set[str] = {ir.StringAttr(op.attributes["sym_name"]).value for op in ir.ops(module)
                          if op.name in ("func.func", "stream.executable") and "sym_name" in op.attributes}
        texts: list[str] = []
        for op in [o for o in ir.ops(module) if o.name in ("stablehlo.dot", "stablehlo.dot_general")]:
            shape = matmul_shape(op, self.min_multiply_adds)
            if shape is None:
                continue
            for symbol, text in ((shape.symbol, kernel_executable), (shape.caller, kernel_caller)):
                if symbol not in done:
                    done.add(symbol)
                    texts.append(text(shape))
            with ir.InsertionPoint(op), op.location:
                call = ir.Operation.create("func.call", results=[op.results[0].type], operands=list(op.operands)[:2],
                                           attributes={"callee": ir.FlatSymbolRefAttr.get(shape.caller)})
            op.results[0].replace_all_uses_with(call.results[0])
            op.erase()
        if texts:
            _add_definitions(module, texts)
