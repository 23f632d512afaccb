"""oxla-fold-constants: evaluate pure StableHLO ops whose operands are all constants.

Each foldable op (its operands, and the values its regions use from above,
all `stablehlo.constant`s) is evaluated with oxla's reference interpreter,
in a throwaway function holding copies of the constants and of the op; when
the interpreter cannot evaluate it (UnsupportedOp), a few exact numpy
kernels take over. The results become `stablehlo.constant`s, bit for bit
(NaN payloads and -0.0 included), and constants nobody uses any more go.

What is never folded:
- ops with side effects, or a region holding one; rng, rng_bit_generator
  (its bits are the implementation's), custom_call, composite, collectives,
  control flow (while, if, case: their cost is unbounded), fft, barriers;
- ops whose results hold more than `max-elements` elements together, or
  whose results are not static tensors of a plain element type (quantized,
  tuples, tokens, dynamic shapes);
- ops that would blow up data: a result that is not a splat may hold at
  most as many elements as the operands' dense (non-splat) constants, or
  1,024 elements, whichever is more. So a broadcast of a splat folds to a
  splat, while a broadcast of a dense constant, or an iota, that would make
  a large dense constant stays an op.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from oxla import ir
from oxla.dialects.elements import DTYPES, constant_value
from oxla.transforms.dce import is_pure
from oxla.transforms.registry import Pass, register_pass

# StableHLO ops that are never folded (besides impure ones, which is_pure rejects).
NEVER_FOLD = frozenset({
    "stablehlo.constant", "stablehlo.custom_call", "stablehlo.composite", "stablehlo.rng",
    "stablehlo.rng_bit_generator", "stablehlo.while", "stablehlo.if", "stablehlo.case",
    "stablehlo.optimization_barrier", "stablehlo.fft", "stablehlo.tuple", "stablehlo.get_tuple_element",
    "stablehlo.create_token", "stablehlo.after_all", "stablehlo.uniform_quantize", "stablehlo.uniform_dequantize",
    "stablehlo.return",
})
# A non-splat result may always hold this many elements, even from splats or no operands at all.
EXPANSION_FREE_ELEMENTS = 1024
# Region bodies run per element in the interpreter when they are not elementwise: bound that work.
STEP_LIMIT = 200_000


@dataclasses.dataclass
class FoldStats:
    """What one run folded."""

    folded: int = 0
    declined: int = 0  # ops with constant operands left alone (size, type or evaluation)


def fold_constants(op, *, max_elements: int = 1_000_000) -> FoldStats:
    """Folds every foldable op nested in `op` (a module or any op), in program order; returns counts."""
    stats = FoldStats()
    target = getattr(op, "operation", op)
    for region in target.regions:
        for block in region.blocks:
            _fold_block(block, max_elements, stats)
    return stats


def _fold_block(block, max_elements: int, stats: FoldStats) -> None:
    for child in list(block.operations):
        op = child.operation
        if _fold(op, max_elements, stats):
            continue
        for region in op.regions:
            for inner in region.blocks:
                _fold_block(inner, max_elements, stats)


def _fold(op, max_elements: int, stats: FoldStats) -> bool:
    """Folds `op` when it qualifies; True when it was replaced."""
    if not op.name.startswith("stablehlo.") or op.name in NEVER_FOLD or len(op.results) == 0:
        return False
    if not any(True for r in op.results for _ in r.uses):
        return False  # dead: oxla-dce's job, not worth evaluating
    for v in op.operands:  # most ops read a non-constant: leave before anything costly
        if _constant_op(v) is None:
            return False
    externals = _external_values(op)
    constants = [_constant_op(v) for v in externals]
    if any(c is None for c in constants) or not is_pure(op):
        return False
    shapes = [_static_shape(r.type) for r in op.results]
    if any(s is None for s in shapes):
        stats.declined += 1
        return False
    sizes = [math.prod(s) for s in shapes]
    if sum(sizes) > max_elements:
        stats.declined += 1
        return False
    values = evaluate(op, externals)
    if values is None or not _results_fit(op, values):
        stats.declined += 1
        return False
    dense_in = sum(_dense_elements(c) for c in {id(c): c for c in constants}.values())
    allowed = max(dense_in, EXPANSION_FREE_ELEMENTS)
    if sum(v.size for v in values if not _bits_equal(v)) > allowed:
        stats.declined += 1
        return False
    from oxla.dialects import stablehlo as shlo

    with ir.InsertionPoint(op), op.location:
        built = [shlo.constant(v) for v in values]
    new = [getattr(b, "value", b) for b in built]
    if any(str(n.type) != str(r.type) for n, r in zip(new, op.results)):
        for n in new:
            n.owner.erase()
        stats.declined += 1
        return False
    for old, value in zip(op.results, new):
        old.replace_all_uses_with(value)
    op.erase()
    for c in {id(c): c for c in constants}.values():
        if not any(True for r in c.results for _ in r.uses):
            c.erase()
    stats.folded += 1
    return True


def _external_values(op) -> list:
    """The op's operands and the values its regions use from above, each once, in order of first use."""
    if not len(op.regions):
        seen: dict = {}
        for v in op.operands:
            seen.setdefault(v, None)
        return list(seen)
    inside: set = set()
    seen = {}

    def visit(child):
        for region in child.regions:
            for block in region.blocks:
                inside.update(block.arguments)
        for v in child.operands:
            if v not in inside:
                seen.setdefault(v, None)
        inside.update(child.results)

    # Pre-order: definitions inside the op are seen before their uses (single-block regions).
    ir.walk(op, visit)
    return list(seen)


def _constant_op(value):
    """The `stablehlo.constant` op defining `value` (of a plain element type), else None."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name != "stablehlo.constant":
        return None
    owner = getattr(owner, "operation", owner)
    return owner if _static_shape(value.type) is not None else None


def _static_shape(t) -> tuple[int, ...] | None:
    """The static shape of a ranked tensor type with a numpy-representable element type, else None."""
    if not isinstance(t, ir.RankedTensorType):
        return None
    shaped = ir.RankedTensorType(t)
    if not shaped.has_static_shape or str(shaped.element_type) not in DTYPES:
        return None
    return tuple(shaped.shape)


def _dense_elements(constant) -> int:
    """How many elements a constant stores: 1 for a splat, all of them otherwise."""
    shape = _static_shape(constant.results[0].type)
    size = math.prod(shape)
    try:
        attr = ir.DenseElementsAttr(constant.attributes["value"])
        return 1 if attr.is_splat else size
    except (TypeError, ValueError):  # complex and other attributes the bindings cannot hand over
        text = constant.get_asm(print_generic_op_form=True, assume_verified=True, large_elements_limit=16)
        literal = text[text.index("value = ") + len("value = "):]
        return size if literal.startswith(("dense<[", 'dense<"', "dense_resource")) else 1


def _bits_equal(array: np.ndarray) -> bool:
    """Whether every element of `array` has the same bit pattern (a splat, -0.0 and NaN payloads kept)."""
    if array.size <= 1:
        return True
    raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8).reshape(array.size, -1)
    return bool((raw == raw[0]).all())


def _results_fit(op, values) -> bool:
    """Whether evaluated values match the op's result types exactly (shape and dtype)."""
    if len(values) != len(op.results):
        return False
    for v, r in zip(values, op.results):
        shaped = ir.RankedTensorType(r.type)
        if not isinstance(v, np.ndarray) or v.shape != tuple(shaped.shape) \
                or v.dtype != DTYPES[str(shaped.element_type)]:
            return False
    return True


# Evaluation ---------------------------------------------------------------------------------------------------------

def evaluate(op, externals) -> list[np.ndarray] | None:
    """The op's results, computed from the constants defining `externals`; None when it cannot be evaluated."""
    try:
        return _interpret(op, externals)
    except NotImplementedError:
        pass
    except (ImportError, ArithmeticError, RuntimeError, ValueError, TypeError, KeyError, IndexError,
            MemoryError, AssertionError):
        return None
    try:
        return _numpy_kernel(op)
    except (NotImplementedError, ArithmeticError, ValueError, TypeError, KeyError, IndexError, MemoryError):
        return None


def _interpret(op, externals) -> list[np.ndarray]:
    """Evaluates copies of the constants and of `op` in a throwaway module with the reference interpreter."""
    from iree.compiler.dialects import func

    from oxla import interpreter

    with op.context, ir.Location.unknown():
        scratch = ir.Module.create()
        with ir.InsertionPoint(scratch.body):
            fn = func.FuncOp("fold", ([], [r.type for r in op.results]))
            block = fn.add_entry_block()
        with ir.InsertionPoint(block):
            mapping = {}
            for v in externals:
                copy = v.owner.operation.clone()
                mapping[v] = copy.results[0]
            clone = ir.clone_remapped(op, mapping)
            func.ReturnOp(list(clone.results))
        results = interpreter.Interpreter(scratch, step_limit=STEP_LIMIT).call("fold")
    return [np.asarray(r) for r in results]


def _numpy_kernel(op) -> list[np.ndarray]:
    """The few ops numpy computes exactly as StableHLO specifies (NotImplementedError for the rest)."""
    view = op.opview
    args = [constant_value(v.owner.operation) for v in op.operands]
    name = op.name.removeprefix("stablehlo.")
    out_shape = _static_shape(op.results[0].type)
    out_dtype = DTYPES[str(ir.RankedTensorType(op.results[0].type).element_type)]
    binary = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "and": np.bitwise_and,
              "or": np.bitwise_or, "xor": np.bitwise_xor}
    if name in binary and args[0].dtype.kind in "biu":
        with np.errstate(all="ignore"):
            result = binary[name](args[0], args[1])  # integers wrap around, as StableHLO's do
    elif name == "negate" and args[0].dtype.kind in "iu":
        result = np.negative(args[0])
    elif name == "not" and args[0].dtype.kind in "biu":
        result = np.invert(args[0])
    elif name == "select":
        result = np.where(args[0], args[1], args[2])
    elif name == "reshape":
        result = args[0].reshape(out_shape)
    elif name == "transpose":
        result = np.transpose(args[0], view.permutation)
    elif name == "broadcast_in_dim":
        dims = list(view.broadcast_dimensions)
        shape = [1] * len(out_shape)
        for d, size in zip(dims, args[0].shape):
            shape[d] = size
        order = np.argsort(dims)
        result = np.broadcast_to(np.transpose(args[0], order).reshape(shape), out_shape)
    elif name == "slice":
        result = args[0][tuple(slice(a, b, s) for a, b, s in zip(view.start_indices, view.limit_indices,
                                                                  view.strides))]
    elif name == "concatenate":
        result = np.concatenate(args, axis=view.dimension)
    elif name == "reverse":
        result = np.flip(args[0], axis=tuple(view.dimensions)) if len(view.dimensions) else args[0]
    elif name == "iota" and out_dtype.kind in "iu":
        dim = view.iota_dimension
        line = np.arange(out_shape[dim]).astype(out_dtype)
        shape = [1] * len(out_shape)
        shape[dim] = out_shape[dim]
        result = np.broadcast_to(line.reshape(shape), out_shape)
    else:
        raise NotImplementedError(op.name)
    result = np.ascontiguousarray(result)
    if result.dtype != out_dtype or result.shape != out_shape:
        raise ValueError(f"{op.name}: computed {result.dtype}{list(result.shape)}")
    return [result]


@register_pass
class FoldConstants(Pass):
    """Evaluates pure StableHLO ops whose operands are all constants and replaces them by constants."""

    name = "oxla-fold-constants"
    anchor = None
    max_elements: int = dataclasses.field(default=1_000_000, metadata={
        "help": "never create constants holding more elements than this (per folded op)"})

    def run(self, op) -> None:
        fold_constants(op, max_elements=self.max_elements)
