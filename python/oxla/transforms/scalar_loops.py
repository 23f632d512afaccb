"""oxla-llvmcpu-scalar-loops: while loops that move single elements of small arrays, as one CPU dispatch.

IREE runs a stablehlo.while on the host, each trip a command buffer, the
trip's dispatches and a wait (a few microseconds), however little the trip
computes. Some loops compute almost nothing: JAX turns LU's pivots into a
permutation by a fori_loop of one swap a trip (jnp.linalg.solve, inv, lu),
256 trips and 1,280 dispatches for a 256x256 matrix. On llvm-cpu targets
this pass runs such a loop as one dispatch of one workgroup that oxla
writes (an IREE `stream.executable`): the trips are an scf.while, each
array of the loop a buffer the trips read and write an element at a time,
each single-element value a scalar. jnp.linalg.solve of f32[256,256] on a
2-core Zen 4 (one thread, paired): 1.55 -> 0.51 ms (XLA 0.51).

A loop is taken when every value it carries or reads from outside is an
i32, i64, f32 or f64 tensor of one element (a scalar, whatever its shape)
or of one dimension of at most MAX_ELEMENTS, at least one of them an array,
and every op of its condition and body (with the functions they call) is
one `_emit` knows: element-wise ops on scalars (_ARITHMETIC, compare,
select, convert, clamp, not), reshapes and broadcasts between
single-element shapes, and an array's dynamic_slice and
dynamic_update_slice of one element (their index clamped into the array,
as StableHLO's are) or scatter of one element (dropped when its index is
outside the array, as StableHLO's is; replacing or adding). An array is
written in place, so a loop is taken only where each version of an array
is read before the one op that makes the next from it, which JAX's
functional updates do.
"""

from __future__ import annotations

import math
import struct

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.transforms.kernel_text import FOOTER, cpu_lanes, dispatch_caller, executable_header
from oxla.transforms.registry import Pass, register_pass

# The most elements of an array a loop may carry or read.
MAX_ELEMENTS = 1 << 16
_TYPES = ("i32", "i64", "f32", "f64")
# stablehlo op: (its arith op on integers, on floats); None where it has none.
_ARITHMETIC = {
    "stablehlo.add": ("arith.addi", "arith.addf"),
    "stablehlo.subtract": ("arith.subi", "arith.subf"),
    "stablehlo.multiply": ("arith.muli", "arith.mulf"),
    "stablehlo.and": ("arith.andi", None),
    "stablehlo.or": ("arith.ori", None),
    "stablehlo.xor": ("arith.xori", None),
    "stablehlo.minimum": ("arith.minsi", "arith.minimumf"),
    "stablehlo.maximum": ("arith.maxsi", "arith.maximumf"),
}
# stablehlo.compare's direction: (signed predicate, unsigned one, float one; StableHLO's NE is true for NaNs).
_PREDICATES = {"EQ": ("eq", "eq", "oeq"), "NE": ("ne", "ne", "une"), "LT": ("slt", "ult", "olt"),
               "LE": ("sle", "ule", "ole"), "GT": ("sgt", "ugt", "ogt"), "GE": ("sge", "uge", "oge")}
_SAME_ELEMENT = ("stablehlo.reshape", "stablehlo.broadcast_in_dim")


class _Unsupported(Exception):
    """The loop has something the kernel does not compute; it stays a host loop."""


def _tensor(value) -> tuple[list[int], str]:
    """(static shape, element type) of a ranked tensor value; _Unsupported otherwise."""
    try:
        shaped = ir.RankedTensorType(value.type)
    except ValueError:
        raise _Unsupported from None
    if not shaped.has_static_shape:
        raise _Unsupported
    return list(shaped.shape), str(shaped.element_type)


def _is_float(element: str) -> bool:
    return element.startswith("f")


def _flat(value) -> tuple[int, str]:
    """(element count, element type) of a value a loop reads from outside, bound as a 1-D buffer."""
    dims, element = _tensor(value)
    return math.prod(dims), element


def _literal(attr, element: str) -> str:
    """A single-element constant's value as arith text (floats as their exact bits)."""
    dense = ir.DenseElementsAttr(attr)
    value = dense.get_splat_value() if dense.is_splat else dense[0]
    if element == "i1":
        return "true" if (ir.BoolAttr(value).value if ir.BoolAttr.isinstance(value) else ir.IntegerAttr(value).value) \
            else "false"
    if _is_float(element):
        number = ir.FloatAttr(value).value
        bits = struct.unpack("<I", struct.pack("<f", number))[0] if element == "f32" else \
            struct.unpack("<Q", struct.pack("<d", number))[0]
        return f"0x{bits:0{8 if element == 'f32' else 16}X}"
    return str(ir.IntegerAttr(value).value)


def _enclosing_blocks(op) -> list:
    """The blocks holding `op` and each op around it."""
    blocks = []
    child, parent = op, op.parent
    while parent is not None:
        parent = parent.operation if hasattr(parent, "operation") else parent
        blocks += [b for region in parent.regions for b in region.blocks
                   if any(o.operation == child for o in b.operations)]
        child, parent = parent, parent.parent
    return blocks


def _defined_in(value, blocks: list) -> bool:
    """Whether `value` is an argument or op result of one of `blocks`."""
    owner = ir.producer(value)
    if owner is None:
        return any(value.owner == b for b in blocks)
    return any(any(o.operation == owner for o in b.operations) for b in blocks)


class _Buffer:
    """An array of the loop: its memref, length and element type, whether the loop may write it (a carried
    array's own buffer, not a binding of a value from outside), and the version of it not yet updated."""

    def __init__(self, name: str, length: int, element: str, writable: bool = False):
        self.name, self.length, self.element, self.writable = name, length, element, writable
        self.version = 0

    @property
    def memref(self) -> str:
        return f"memref<{self.length}x{self.element}>"


class _Kernel:
    """The lines of one loop's dispatch, made by walking the loop: SSA names of the loop's values, its
    arrays, and the values it reads from outside (bindings in)."""

    def __init__(self, functions: dict, loop):
        self.loop = loop
        self.functions = functions  # the module's functions by name
        self.lines: list[str] = []
        self.prologue: list[str] = []  # constants and values read from outside, before the trips
        self.enclosing = _enclosing_blocks(loop)
        self.scalars: dict = {}  # value -> (SSA name, element type)
        self.arrays: dict = {}  # value -> (_Buffer, version)
        self.inputs: dict = {}  # value from outside -> binding name
        self.count = 0
        self.depth = 0

    def fresh(self, stem: str = "v") -> str:
        self.count += 1
        return f"%{stem}{self.count}"

    # -- values --------------------------------------------------------------

    def scalar(self, value) -> tuple[str, str]:
        """(SSA name, element type) of a single-element value: made, a constant, or read from outside."""
        if value in self.scalars:
            return self.scalars[value]
        dims, element = _tensor(value)
        owner = ir.producer(value)
        if math.prod(dims) != 1:
            raise _Unsupported
        if owner is not None and owner.name == "stablehlo.constant":
            name = self.fresh("k")
            self.prologue.append(f"{name} = arith.constant {_literal(owner.attributes['value'], element)} : {element}")
        elif element in _TYPES:
            binding = self._input(value)
            name = self.fresh("ld")
            self.prologue.append(f"{name} = memref.load %{binding}[%c0] : memref<1x{element}>")
        else:
            raise _Unsupported
        self.scalars[value] = (name, element)
        return name, element

    def array(self, value) -> _Buffer:
        """The buffer holding `value`, an array version not yet updated; arrays read from outside are bound."""
        if value not in self.arrays:
            dims, element = _tensor(value)
            if len(dims) != 1 or dims[0] > MAX_ELEMENTS or element not in _TYPES:
                raise _Unsupported
            self.arrays[value] = (_Buffer(f"%{self._input(value)}", dims[0], element), 0)
        buffer, version = self.arrays[value]
        if version != buffer.version:
            raise _Unsupported  # read after the array was updated in place
        return buffer

    def _input(self, value) -> str:
        """The binding name of a value the loop reads from outside (one defined where the loop is)."""
        if value not in self.inputs:
            if not _defined_in(value, self.enclosing):
                raise _Unsupported
            self.inputs[value] = f"in{len(self.inputs)}"
        return self.inputs[value]

    def is_array(self, value) -> bool:
        dims, _ = _tensor(value)
        return math.prod(dims) != 1

    def bind(self, value, source) -> None:
        """Lets `value` name what `source` names (a scalar, or an array version)."""
        if self.is_array(source):
            self.arrays[value] = self.arrays[source] if source in self.arrays else (self.array(source), 0)
            self.array(value)
        else:
            self.scalars[value] = self.scalar(source)

    def updated(self, result, buffer: _Buffer) -> None:
        """`result` is the next version of `buffer`, written in place (only a carried array's own buffer)."""
        if not buffer.writable:
            raise _Unsupported
        buffer.version += 1
        self.arrays[result] = (buffer, buffer.version)

    # -- ops -----------------------------------------------------------------

    def block(self, block, arguments: list) -> list:
        """Emits `block`'s ops with its arguments naming `arguments`; the values it returns."""
        for argument, value in zip(block.arguments, arguments):
            self.bind(argument, value)
        for op in block.operations:
            if op.name in ("stablehlo.return", "func.return"):
                return list(op.operands)
            self.op(op)
        raise _Unsupported

    def op(self, op) -> None:
        """Emits one op of the loop (a call's function inline)."""
        name = op.name
        if name == "stablehlo.constant":
            return  # made where it is read
        if name == "func.call":
            callee = self.functions.get(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
            if callee is None or not len(callee.regions[0].blocks) or self.depth > 8:
                raise _Unsupported
            self.depth += 1
            returned = self.block(callee.regions[0].blocks[0], list(op.operands))
            self.depth -= 1
            for result, value in zip(op.results, returned):
                self.bind(result, value)
            return
        if name in _SAME_ELEMENT and not self.is_array(op.results[0]):
            self.scalars[op.results[0]] = self.scalar(op.operands[0])
            return
        emit = _EMITTERS.get(name)
        if emit is None:
            raise _Unsupported
        emit(self, op)

    def define(self, result, text: str, element: str) -> None:
        """Emits `%name = text` for a scalar result."""
        name = self.fresh()
        self.lines.append(f"{name} = {text}")
        self.scalars[result] = (name, element)

    def index(self, value, length: int) -> str:
        """An array index from a scalar, clamped into [0, length - 1] as dynamic_slice's start is."""
        name, element = self.scalar(value)
        if _is_float(element):
            raise _Unsupported
        low, high, clamped = self.fresh("lo"), self.fresh("hi"), self.fresh("at")
        self.lines += [f"{low} = arith.constant 0 : {element}", f"{high} = arith.constant {length - 1} : {element}",
                       f"{clamped}_a = arith.maxsi {name}, {low} : {element}",
                       f"{clamped}_b = arith.minsi {clamped}_a, {high} : {element}",
                       f"{clamped} = arith.index_cast {clamped}_b : {element} to index"]
        return clamped


def _arithmetic(kernel: _Kernel, op) -> None:
    (a, element), (b, _) = kernel.scalar(op.operands[0]), kernel.scalar(op.operands[1])
    chosen = _ARITHMETIC[op.name][1 if _is_float(element) else 0]
    if chosen is None:
        raise _Unsupported
    kernel.define(op.results[0], f"{chosen} {a}, {b} : {element}", element)


def _compare(kernel: _Kernel, op) -> None:
    (a, element), (b, _) = kernel.scalar(op.operands[0]), kernel.scalar(op.operands[1])
    direction = str(op.attributes["comparison_direction"]).split()[-1].rstrip(">")
    kind = str(op.attributes["compare_type"]).split()[-1].rstrip(">") if "compare_type" in op.attributes else (
        "FLOAT" if _is_float(element) else "SIGNED")
    column = {"SIGNED": 0, "UNSIGNED": 1, "FLOAT": 2}.get(kind)
    if column is None or (column == 2) != _is_float(element):
        raise _Unsupported
    predicate = _PREDICATES[direction][column]
    kernel.define(op.results[0], f"arith.cmp{'f' if column == 2 else 'i'} {predicate}, {a}, {b} : {element}", "i1")


def _select(kernel: _Kernel, op) -> None:
    (test, _), (a, element), (b, _) = (kernel.scalar(v) for v in op.operands)
    kernel.define(op.results[0], f"arith.select {test}, {a}, {b} : {element}", element)


def _clamp(kernel: _Kernel, op) -> None:
    (low, element), (x, _), (high, _) = (kernel.scalar(v) for v in op.operands)
    upper, lower = ("arith.minimumf", "arith.maximumf") if _is_float(element) else ("arith.minsi", "arith.maxsi")
    floor = kernel.fresh()
    kernel.lines.append(f"{floor} = {lower} {x}, {low} : {element}")
    kernel.define(op.results[0], f"{upper} {floor}, {high} : {element}", element)


def _not(kernel: _Kernel, op) -> None:
    a, element = kernel.scalar(op.operands[0])
    ones = kernel.fresh("k")
    kernel.lines.append(f"{ones} = arith.constant {'true' if element == 'i1' else -1} : {element}")
    kernel.define(op.results[0], f"arith.xori {a}, {ones} : {element}", element)


def _convert(kernel: _Kernel, op) -> None:
    a, source = kernel.scalar(op.operands[0])
    _, target = _tensor(op.results[0])
    if source == target:
        kernel.scalars[op.results[0]] = (a, source)
        return
    width = {"i1": 1, "i32": 32, "i64": 64, "f32": 32, "f64": 64}
    if source not in width or target not in width:
        raise _Unsupported
    if _is_float(source) and _is_float(target):
        text = "arith.extf" if width[target] > width[source] else "arith.truncf"
    elif _is_float(target):
        text = "arith.uitofp" if source == "i1" else "arith.sitofp"
    elif _is_float(source):
        raise _Unsupported  # StableHLO leaves out-of-range conversions to the implementation
    elif target == "i1":
        zero = kernel.fresh("k")
        kernel.lines.append(f"{zero} = arith.constant 0 : {source}")
        kernel.define(op.results[0], f"arith.cmpi ne, {a}, {zero} : {source}", "i1")
        return
    else:
        text = "arith.extui" if source == "i1" else "arith.extsi" if width[target] > width[source] else "arith.trunci"
    kernel.define(op.results[0], f"{text} {a} : {source} to {target}", target)


def _dynamic_slice(kernel: _Kernel, op) -> None:
    if kernel.is_array(op.results[0]):
        raise _Unsupported
    if not kernel.is_array(op.operands[0]):  # the one element, whatever the index
        kernel.scalars[op.results[0]] = kernel.scalar(op.operands[0])
        return
    buffer = kernel.array(op.operands[0])
    at = kernel.index(op.operands[1], buffer.length)
    kernel.define(op.results[0], f"memref.load {buffer.name}[{at}] : {buffer.memref}", buffer.element)


def _dynamic_update_slice(kernel: _Kernel, op) -> None:
    if not kernel.is_array(op.operands[0]):
        kernel.scalars[op.results[0]] = kernel.scalar(op.operands[1])
        return
    if kernel.is_array(op.operands[1]):
        raise _Unsupported
    buffer = kernel.array(op.operands[0])
    value, _ = kernel.scalar(op.operands[1])
    at = kernel.index(op.operands[2], buffer.length)
    kernel.lines.append(f"memref.store {value}, {buffer.name}[{at}] : {buffer.memref}")
    kernel.updated(op.results[0], buffer)


def _scatter(kernel: _Kernel, op) -> None:
    """A scatter of one element into an array at one index, replacing or adding; dropped outside the array."""
    numbers = str(op.attributes["scatter_dimension_numbers"])
    if (len(op.operands) != 3 or "update_window_dims" in numbers or "batching" in numbers
            or "inserted_window_dims = [0]" not in numbers or "scatter_dims_to_operand_dims = [0]" not in numbers):
        raise _Unsupported
    body = op.regions[0].blocks[0]
    ops = list(body.operations)
    first, second = body.arguments
    if len(ops) == 1 and ops[0].operands[0] == second:
        combine = None
    elif len(ops) == 2 and ops[0].name == "stablehlo.add" and set(ops[0].operands) == {first, second} \
            and ops[1].operands[0] == ops[0].results[0]:
        combine = "add"
    else:
        raise _Unsupported
    buffer = kernel.array(op.operands[0])
    index, element = kernel.scalar(op.operands[1])
    value, _ = kernel.scalar(op.operands[2])
    if _is_float(element):
        raise _Unsupported
    low, high, inside, at = (kernel.fresh(s) for s in ("lo", "hi", "ok", "at"))
    lines = [f"{low} = arith.constant 0 : {element}", f"{high} = arith.constant {buffer.length} : {element}",
             f"{inside}_a = arith.cmpi sge, {index}, {low} : {element}",
             f"{inside}_b = arith.cmpi slt, {index}, {high} : {element}",
             f"{inside} = arith.andi {inside}_a, {inside}_b : i1",
             f"scf.if {inside} {{",
             f"{at} = arith.index_cast {index} : {element} to index"]
    if combine:
        old = kernel.fresh()
        add = "arith.addf" if _is_float(buffer.element) else "arith.addi"
        lines += [f"{old} = memref.load {buffer.name}[{at}] : {buffer.memref}",
                  f"{old}_s = {add} {old}, {value} : {buffer.element}"]
        value = f"{old}_s"
    kernel.lines += [*lines, f"memref.store {value}, {buffer.name}[{at}] : {buffer.memref}", "}"]
    kernel.updated(op.results[0], buffer)


def _negate_or_abs(kernel: _Kernel, op) -> None:
    a, element = kernel.scalar(op.operands[0])
    if op.name == "stablehlo.abs":
        kernel.define(op.results[0], f"math.abs{'f' if _is_float(element) else 'i'} {a} : {element}", element)
    elif _is_float(element):
        kernel.define(op.results[0], f"arith.negf {a} : {element}", element)
    else:
        zero = kernel.fresh("k")
        kernel.lines.append(f"{zero} = arith.constant 0 : {element}")
        kernel.define(op.results[0], f"arith.subi {zero}, {a} : {element}", element)


_EMITTERS = {
    **{name: _arithmetic for name in _ARITHMETIC},
    "stablehlo.compare": _compare,
    "stablehlo.select": _select,
    "stablehlo.clamp": _clamp,
    "stablehlo.not": _not,
    "stablehlo.convert": _convert,
    "stablehlo.negate": _negate_or_abs,
    "stablehlo.abs": _negate_or_abs,
    "stablehlo.dynamic_slice": _dynamic_slice,
    "stablehlo.dynamic_update_slice": _dynamic_update_slice,
    "stablehlo.scatter": _scatter,
}


def _loop_text(kernel: _Kernel, symbol: str) -> tuple[str, list, list[str]]:
    """(the executable's text, the values it reads in binding order, its result types) for the loop: each
    carried array copied into its result buffer, then the trips as an scf.while carrying the scalars."""
    loop = kernel.loop
    carried = list(loop.operands)
    results: list[tuple[str, str, int]] = []  # (binding name, element, length) per carried value
    copies: list[str] = []
    scalars: list[tuple[int, str, str]] = []  # (position, start name, element)
    for position, value in enumerate(carried):
        dims, element = _tensor(value)
        if element not in _TYPES:
            raise _Unsupported
        out = f"out{position}"
        if math.prod(dims) == 1:
            name, _ = kernel.scalar(value)
            scalars.append((position, name, element))
            results.append((out, element, 1))
            continue
        source = kernel.array(value)
        results.append((out, element, source.length))
        buffer = _Buffer(f"%{out}", source.length, element, writable=True)
        copies += [f"scf.for %i = %c0 to %n{position} step %c1 {{",
                   f"%e = memref.load {source.name}[%i] : {source.memref}",
                   f"memref.store %e, %{out}[%i] : {buffer.memref}", "}"]
        copies.insert(0, f"%n{position} = arith.constant {source.length} : index")
        kernel.arrays[("carried", position)] = (buffer, 0)
    if len(scalars) == len(carried) or not scalars:
        raise _Unsupported  # no array (IREE's host code runs such loops without dispatches), or no counter
    before, after = loop.regions[0].blocks[0], loop.regions[1].blocks[0]
    types = ", ".join(element for _, _, element in scalars)

    def arguments(block) -> list:
        """The values a region's block arguments name: the trip's scalars, the carried buffers."""
        names = []
        for position, argument in enumerate(block.arguments):
            if kernel.is_array(argument):
                buffer, _ = kernel.arrays[("carried", position)]
                kernel.arrays[argument] = (buffer, buffer.version)
            else:
                index = [p for p, _, _ in scalars].index(position)
                kernel.scalars[argument] = (f"%s{index}", scalars[index][2])
            names.append(argument)
        return names

    versions = [buffer.version for key, (buffer, _) in kernel.arrays.items() if isinstance(key, tuple)]
    args = arguments(before)
    (test,) = kernel.block(before, args)
    condition, _ = kernel.scalar(test)
    if versions != [buffer.version for key, (buffer, _) in kernel.arrays.items() if isinstance(key, tuple)]:
        raise _Unsupported  # the condition updates an array, which the trip would not see
    cond_lines, kernel.lines = kernel.lines, []
    args = arguments(after)
    yielded = kernel.block(after, args)
    next_scalars = []
    for position, value in enumerate(yielded):
        if kernel.is_array(value):
            buffer, _ = kernel.arrays[("carried", position)]
            if kernel.array(value) is not buffer:
                raise _Unsupported  # an array yielded in another's place
        else:
            next_scalars.append(kernel.scalar(value)[0])
    body_lines = kernel.lines
    state = ", ".join(f"%s{i} = {name}" for i, (_, name, _) in enumerate(scalars))
    params = ", ".join(f"%s{i}: {element}" for i, (_, _, element) in enumerate(scalars))
    finals = [f"%f#{i}" for i in range(len(scalars))] if len(scalars) > 1 else ["%f"]
    count = f":{len(scalars)}" if len(scalars) > 1 else ""
    trips = [
        f"%f{count} = scf.while ({state}) : ({types}) -> ({types}) {{",
        *cond_lines,
        f"scf.condition({condition}) {', '.join(f'%s{i}' for i in range(len(scalars)))} : {types}",
        "} do {",
        f"^bb0({params}):",
        *body_lines,
        f"scf.yield {', '.join(next_scalars)} : {types}",
        "}",
        *(f"memref.store {finals[i]}, %out{position}[%c0] : memref<1x{element}>"
          for i, (position, _, element) in enumerate(scalars)),
    ]
    inputs = list(kernel.inputs)
    bindings = [(kernel.inputs[v], "memref<{}x{}>".format(*_flat(v))) for v in inputs]
    bindings += [(out, f"memref<{length}x{element}>") for out, element, length in results]
    text = "\n".join([*executable_header(symbol, 1, bindings), *kernel.prologue, *copies, *trips, *FOOTER])
    return text, inputs, [f"tensor<{length}x{element}>" for _, element, length in results]


def _replace(loop, kernel: _Kernel, symbol: str, module) -> None:
    """Replaces the loop by a call of its dispatch, its values reshaped to and from the bindings' shapes."""
    text, inputs, result_types = _loop_text(kernel, symbol)
    operand_types = ["tensor<{}x{}>".format(*_flat(v)) for v in inputs]
    ir.append_definitions(module, text + "\n" + dispatch_caller(symbol, operand_types, result_types))
    with ir.InsertionPoint(loop), loop.location:
        flat = [build.reshape(v, [_flat(v)[0]]) for v in inputs]
        results = build.create("func.call", [ir.Type.parse(t) for t in result_types], flat,
                               callee=ir.FlatSymbolRefAttr.get(f"{symbol}_call"))
        for old, new in zip(loop.results, results):
            old.replace_all_uses_with(build.reshape(new, _tensor(old)[0]))
    loop.erase()


@register_pass
class ScalarLoops(Pass):
    """Runs while loops that move single elements of small arrays (an LU's pivots to a permutation) as one CPU dispatch."""

    name = "oxla-llvmcpu-scalar-loops"
    anchor = "builtin.module"

    def run(self, module) -> None:
        if cpu_lanes(module, "f32") is None:
            return
        named = {ir.StringAttr(op.attributes["sym_name"]).value: op for op in ir.body_ops(module)
                 if "sym_name" in op.attributes}
        functions = {name: op for name, op in named.items() if op.name == "func.func"}
        taken = set(named)
        for loop in [op for op in ir.ops(module, post_order=True) if op.name == "stablehlo.while"]:
            symbol = next(f"oxla_scalar_loop_{i}" for i in range(len(taken) + 1)
                          if f"oxla_scalar_loop_{i}" not in taken)
            try:
                _replace(loop, _Kernel(functions, loop), symbol, module)
            except _Unsupported:
                continue
            taken.add(symbol)
