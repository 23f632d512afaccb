"""JAX programs into oxla: `import_jax` takes a function, a `jax.export.Exported` or its serialized bytes.

JAX already speaks StableHLO, so this importer translates JAX's conventions
rather than its operators:

1. `jax.export` lowers the function; jaxlib reads the portable artifact back
   and prints it as generic MLIR text, which oxla parses with unregistered
   dialects allowed, because IREE's context has no Shardy (`sdy`) dialect.
   Large constants cross beside the text, as MLIR bytecode of a module that
   holds only their (builtin) attributes: raw bytes instead of hex.
2. Every construct JAX adds to plain StableHLO (custom calls, Shardy ops) is
   checked against `CONSTRUCTS`; all unsupported ones are reported together
   in one `UnsupportedOperatorsError` before anything is rewritten.
3. Shardy meshes and shardings become HLO sharding strings (`mhlo.sharding`,
   what JAX writes without Shardy), the original Shardy text kept next to
   them in `oxla.sharding`; meshes go to the module's `oxla.meshes`.
4. JAX's calling convention becomes plain arrays: the platform-index
   argument is fixed, tokens are made inside, the entry is a public `main`.
5. Forms IREE rejects are rewritten: sharding constraints, and under shape
   polymorphism the broadcasts, reshapes, dot_generals and gathers that IREE
   would otherwise reshape dynamically (it lowers tensor.collapse_shape and
   tensor.expand_shape, not dynamic stablehlo reshapes).

`coverage_rows()` lists every construct with what happens to it.

The returned `ImportedModel` flattens pytrees of example-style arguments with
`jax.tree_util` and folds `main`'s results back into the function's output
pytree, as jax arrays when jax arrays came in.
"""

from __future__ import annotations

import inspect
import io
import math
import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

try:
    import jax
    import jax.export as jax_export
    from jax.extend.mlir import deserialize_portable_artifact
    from jax.interpreters.mlir import make_ir_context
    from jaxlib.mlir import ir as jaxlib_ir
except ImportError as exc:  # the framework is an optional extra
    raise ImportError("oxla.importers.jax needs JAX: pip install 'oxla[jax]'") from exc

from oxla import ir
from oxla.diagnostics import SourceLocation
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo.types import to_numpy_dtype
from oxla.errors import ParseError, VerificationError
from oxla.importers.common import ImportedModel, check_supported
from oxla.transforms import lapack

__all__ = ["import_jax", "coverage_rows", "CONSTRUCTS"]

SHARDING = "mhlo.sharding"  # HLO sharding text, the attribute XLA reads
SDY_SHARDING = "oxla.sharding"  # the original Shardy sharding, verbatim
LAPACK_CALLS = f"stablehlo.custom_call @lapack_{{s,d,c,z}}{{{','.join(lapack.ROUTINES)}}}_ffi"
MESHES = "oxla.meshes"  # module attribute: mesh name -> Shardy mesh text


# ----------------------------------------------------------------------------
# Public API
# ----------------------------------------------------------------------------


def import_jax(fn_or_exported, *example_args, **example_kwargs) -> ImportedModel:
    """A JAX function (traced with the example pytrees), an Exported, or serialized bytes, as StableHLO.

    Example arguments are pytrees of arrays, numbers or `jax.ShapeDtypeStruct`
    (whose shapes may hold `jax.export.symbolic_shape` dimensions). With an
    Exported or bytes they are optional and only checked.
    """
    exported, param_names = _export(fn_or_exported, example_args, example_kwargs)
    serialized = bytes(exported.mlir_module_serialized) if exported is not None else bytes(fn_or_exported)
    module = _read_artifact(serialized)
    with ir.context(), ir.Location.unknown():
        check_supported("jax", _constructs_used(module), _is_supported)
        meshes = _meshes(module)
        _translate_sharding_attributes(module, meshes)
        _rewrite_constructs(module, meshes)
        main = _entry_function(module)
        _fix_platform_index(main, exported.platforms if exported is not None else ())
        _make_tokens_inside(main)
        _verify(module)
        convention = _CallingConvention.of(exported, main, param_names)
    imported = ImportedModel(module, "jax", "main", [leaf.name for leaf in convention.leaves],
                             convention.output_names, convention.flatten, convention.unflatten)
    if example_args or example_kwargs:
        convention.check(*example_args, **example_kwargs)
    return imported


@dataclass(frozen=True)
class Construct:
    """Something JAX puts in its StableHLO beyond plain ops, and what the importer does with it."""

    op: str
    status: str  # "translated", "legalized", "kept" or "unsupported"
    note: str
    rewrite: Callable | None = None  # for ops: rewrite(op, meshes) replaces one


def coverage_rows() -> list[dict[str, str]]:
    """The coverage table for the docs: one row per construct, {"op", "status", "note"}."""
    return [{"op": c.op, "status": c.status, "note": c.note} for c in CONSTRUCTS]


# ----------------------------------------------------------------------------
# From the user's object to the portable artifact
# ----------------------------------------------------------------------------


def _export(model, args: tuple, kwargs: dict):
    """(the Exported or None for a bare artifact, the positional parameter names when known)."""
    if isinstance(model, jax_export.Exported):
        return model, None
    if isinstance(model, (bytes, bytearray, memoryview)):
        data = bytes(model)
        if ir.is_bytecode(data):
            return None, None  # a bare portable artifact: `mlir_module_serialized`
        try:
            return jax_export.deserialize(bytearray(data)), None
        except Exception as exc:  # flatbuffers reports corrupt input with assorted errors
            raise ValueError(f"not a jax.export serialization nor a StableHLO portable artifact ({exc})") from None
    if callable(model):
        return _export_function(model, args, kwargs)
    raise TypeError(f"import_jax takes a function, a jax.export.Exported or serialized bytes, "
                    f"not {type(model).__name__}")


def _export_function(fn, args: tuple, kwargs: dict):
    """jax.export of `fn` (jitted if it is not) for the example arguments."""
    params = _parameter_names(fn, args, kwargs)
    _check_example_leaves(args, kwargs, params)
    jitted = fn if hasattr(fn, "lower") and hasattr(fn, "trace") else jax.jit(fn)
    try:
        return jax_export.export(jitted)(*args, **kwargs), params
    except TypeError as exc:  # jax's shape and dtype checks while tracing
        raise ValueError(f"tracing {_function_name(fn)} with the example arguments failed: {exc}") from exc


def _function_name(fn) -> str:
    """The function's name for messages."""
    return getattr(fn, "__name__", type(fn).__name__)


def _parameter_names(fn, args: tuple, kwargs: dict) -> list[str] | None:
    """The names of the parameters the positional example arguments bind; ValueError when they do not bind."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise ValueError(f"the example arguments do not fit {_function_name(fn)}{signature}: {exc}") from None
    names = []
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            names += [f"{name}[{i}]" for i in range(len(value))]
        elif kind is not inspect.Parameter.VAR_KEYWORD and name not in kwargs:
            names.append(name)
    return names


def _check_example_leaves(args: tuple, kwargs: dict, params: list[str] | None) -> None:
    """ValueError naming the first example leaf that is not an array, a number or a ShapeDtypeStruct."""
    for path, leaf in jax.tree_util.tree_flatten_with_path((args, kwargs))[0]:
        if isinstance(leaf, (bool, int, float, complex, np.generic)):
            continue
        if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            raise ValueError(f"{_path_name(path, params)}: expected an array, a number or a jax.ShapeDtypeStruct, "
                             f"got {type(leaf).__name__}")


def _read_artifact(serialized: bytes) -> ir.Module:
    """The portable artifact in oxla's context: text from jaxlib, its large constants as bytecode.

    Falls back to all-text when oxla's MLIR cannot read the constants that
    jaxlib's wrote (bytecode from a newer MLIR than IREE's).
    """
    text, constants = _generic_text(serialized, lift_constants=True)
    module = _parse(text)
    if constants is None:
        return module
    try:
        _restore_constants(module, ir.parse(constants, name="<jax.export constants>"))
    except ParseError:
        module = _parse(_generic_text(serialized, lift_constants=False)[0])
    return module


def _generic_text(serialized: bytes, lift_constants: bool) -> tuple[str, bytes | None]:
    """The portable artifact as generic MLIR text with locations, printed by jaxlib's own MLIR.

    With lift_constants, large constants leave the text (see _lift_constants)
    and come back as the second item: MLIR bytecode of their attributes.
    """
    try:
        return _print_artifact(serialized, lift_constants, _artifact_context())
    except Exception:  # jaxlib raises its own error types for bad bytecode
        pass
    try:  # every dialect jaxlib has, in case the artifact holds more than _artifact_context registers
        return _print_artifact(serialized, lift_constants, make_ir_context())
    except Exception as exc:
        raise ParseError(f"jaxlib cannot read the portable artifact: {exc}") from None


def _artifact_context():
    """A jaxlib MLIR context with the dialects of a portable artifact registered, not loaded.

    JAX's make_ir_context loads every dialect jaxlib has: 1.6 ms, a fifth of
    a small model's import, where this takes 0.2 ms; the text is the same.
    """
    from jaxlib.mlir.dialects import chlo, sdy, stablehlo  # jaxlib's own, like make_ir_context's

    context = jaxlib_ir.Context()
    for dialect in (stablehlo, chlo, sdy):
        dialect.register_dialect(context)
    return context


def _print_artifact(serialized: bytes, lift_constants: bool, context) -> tuple[str, bytes | None]:
    """_generic_text's work within one jaxlib context."""
    with context, jaxlib_ir.Location.unknown():
        module = deserialize_portable_artifact(serialized)
        constants = _lift_constants(module) if lift_constants else None
        return module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True), constants


# Constants with at least this many elements cross from jaxlib to oxla as raw bytes (bytecode) instead of
# hex in the text, which both sides are slow to print and parse: BERT's 44 MB of weights cross in 0.06 s
# instead of 0.33 s (its whole import: 0.41 -> 0.17 s), and the program's text shrinks from 88 MB to 0.13 MB.
_LIFTED_ELEMENTS = 256
_SLOT = "oxla.constant_slot"  # on a lifted constant: which holder attribute has its value


def _lift_constants(module) -> bytes | None:
    """Moves large dense constants out of a jaxlib module; the bytecode of a module holding them, or None.

    Each lifted `stablehlo.constant` keeps a zero splat of its type (a few
    bytes of text) and an `oxla.constant_slot` index into the holder's
    attributes. Complex constants, which the bindings cannot hand to Python,
    stay in the text.
    """
    holder = jaxlib_ir.Module.create()
    slots = 0

    def visit(op):
        nonlocal slots
        if op.name == "stablehlo.constant":
            try:
                value = op.attributes["value"]
            except TypeError:  # complex values: the bindings have no Python type for them
                return jaxlib_ir.WalkResult.ADVANCE
            zero = _zero_element(value)
            if zero is not None:
                holder.operation.attributes[f"oxla.c{slots}"] = value
                op.attributes["value"] = jaxlib_ir.DenseElementsAttr.get_splat(value.type, zero)
                op.attributes[_SLOT] = jaxlib_ir.IntegerAttr.get(jaxlib_ir.IntegerType.get_signless(64), slots)
                slots += 1
        return jaxlib_ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if not slots:
        return None
    buffer = io.BytesIO()
    holder.operation.write_bytecode(buffer)
    return buffer.getvalue()


def _zero_element(value):
    """A zero of a large non-splat int or float dense attribute's element type (jaxlib), else None."""
    if not isinstance(value, jaxlib_ir.DenseElementsAttr) or value.is_splat:
        return None
    shaped = jaxlib_ir.ShapedType(value.type)
    if not shaped.has_static_shape or math.prod(shaped.shape) < _LIFTED_ELEMENTS:
        return None
    element = shaped.element_type
    if isinstance(element, jaxlib_ir.IntegerType):
        return jaxlib_ir.IntegerAttr.get(element, 0)
    if isinstance(element, jaxlib_ir.FloatType):
        return jaxlib_ir.FloatAttr.get(element, 0.0)
    return None


def _restore_constants(module: ir.Module, holder: ir.Module) -> None:
    """Puts each lifted constant's value back from the holder (see _lift_constants)."""
    values = holder.operation.attributes

    def visit(op):
        if _SLOT in op.attributes:
            op.attributes["value"] = values[f"oxla.c{ir.IntegerAttr(op.attributes[_SLOT]).value}"]
            del op.attributes[_SLOT]
        return ir.WalkResult.ADVANCE

    with ir.context():
        module.operation.walk(visit)


def _parse(text: str) -> ir.Module:
    """The text in oxla's context; `sdy` ops and attributes come in as unregistered ones."""
    return ir.parse(text, name="<jax.export>", allow_unregistered_dialects=True)


def _verify(module: ir.Module) -> None:
    """Raises VerificationError when the imported module is not valid IR (an importer bug, said plainly)."""
    diagnostics = ir.verify(module)
    if diagnostics:
        raise VerificationError("the imported JAX module does not verify", diagnostics)


# ----------------------------------------------------------------------------
# The constructs table and the unsupported-construct check
# ----------------------------------------------------------------------------


def _construct_of(op) -> str:
    """The key of `op` in CONSTRUCTS: the op name, with the target for custom calls."""
    if op.name == "stablehlo.custom_call":
        target = ir.StringAttr(op.attributes["call_target_name"]).value
        return LAPACK_CALLS if lapack.routine_of(target) else f"stablehlo.custom_call @{target}"
    return op.name


def _needs_entry(op) -> bool:
    """Ops that must be in CONSTRUCTS to be imported: custom calls and ops of dialects IREE does not have."""
    return op.name == "stablehlo.custom_call" or not ir.context().is_registered_operation(op.name)


def _is_supported(key: str) -> bool:
    """Whether CONSTRUCTS lists `key` with a status other than unsupported."""
    entry = _BY_OP.get(key)
    return entry is not None and entry.status != "unsupported"


def _constructs_used(module) -> list[tuple[str, str]]:
    """(construct, source location) of every op that needs a CONSTRUCTS entry; not inside unknown ops."""
    used, callers = [], _call_sites(module)

    def visit(op):
        if not _needs_entry(op):
            return None
        used.append((_construct_of(op), _where(op, callers)))
        return None if ir.context().is_registered_operation(op.name) else ir.WalkResult.SKIP

    ir.walk(module, visit)
    return used


def _call_sites(module) -> dict[str, list]:
    """Function name -> the func.call ops that call it."""
    sites: dict[str, list] = {}
    for op in ir.ops(module):
        if op.name == "func.call":
            sites.setdefault(ir.FlatSymbolRefAttr(op.attributes["callee"]).value, []).append(op)
    return sites


def _where(op, callers: dict[str, list], seen: frozenset = frozenset()) -> str:
    """file:line:col of the user's code behind an op; for ops of JAX's private functions, their call sites'."""
    place = SourceLocation.of(op.location)
    if place.file is not None:
        return str(place)
    function = op.parent
    while function is not None and function.name != "func.func":
        function = function.parent
    name = ir.StringAttr(function.attributes["sym_name"]).value if function is not None else None
    if name is None or name in seen:
        return ""
    places = [_where(call, callers, seen | {name}) for call in callers.get(name, [])]
    return ", ".join(dict.fromkeys(p for p in places if p))


# ----------------------------------------------------------------------------
# Shardy: meshes and shardings as HLO sharding strings
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Mesh:
    """A Shardy mesh: named axes (major to minor) and optional explicit device ids."""

    axes: tuple[tuple[str, int], ...]
    device_ids: tuple[int, ...] | None = None


@dataclass(frozen=True)
class _AxisRef:
    """An axis or a sub-axis `"x":(pre)size` of a mesh."""

    name: str
    pre: int = 1
    size: int | None = None  # None: the whole axis


@dataclass(frozen=True)
class _Sharding:
    """A Shardy tensor sharding: its mesh (a name or inline), axes per dimension, replicated and unreduced axes."""

    mesh: str | _Mesh
    dims: tuple[tuple[_AxisRef, ...], ...]
    replicated: tuple[_AxisRef, ...] = ()
    unreduced: tuple[_AxisRef, ...] = ()


_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|(@[\w.$-]+)|(-?\d+)|([A-Za-z_]\w*)|([\[\]{}(),:=?<>]))')


class _SdyText:
    """A reader of Shardy attribute bodies (`sharding<...>`, `mesh<...>`, `sharding_per_value<...>`)."""

    def __init__(self, text: str):
        self.text, self.tokens = text, []
        pos = 0
        while pos < len(text.rstrip()):
            match = _TOKEN.match(text, pos)
            if not match:
                raise ValueError(f"unexpected text in Shardy attribute {text!r} at {pos}")
            self.tokens.append(next(g for g in match.groups() if g is not None))
            pos = match.end()
        self.pos = 0

    def peek(self) -> str | None:
        """The next token, not consumed."""
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        """Consumes the next token (which must be `expected` when given)."""
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise ValueError(f"expected {expected or 'more'} in Shardy attribute {self.text!r}, got {token!r}")
        self.pos += 1
        return token

    def accept(self, token: str) -> bool:
        """Consumes the next token when it is `token`."""
        if self.peek() == token:
            self.pos += 1
            return True
        return False

    def listing(self, open_: str, close: str, item: Callable) -> list:
        """`open_ item, item, ... close`, where an item may also be skipped by returning None."""
        self.take(open_)
        items = []
        while not self.accept(close):
            value = item()
            if value is not None:
                items.append(value)
            if not self.accept(","):
                self.take(close)
                break
        return items

    def string(self) -> str:
        """A quoted string's contents."""
        token = self.take()
        if not token.startswith('"'):
            raise ValueError(f"expected a quoted name in Shardy attribute {self.text!r}, got {token!r}")
        return token[1:-1].encode().decode("unicode_escape")

    def mesh_body(self) -> _Mesh:
        """`<["x"=2, ...], device_ids=[...]>`."""
        self.take("<")
        axes = self.listing("[", "]", self._mesh_axis)
        ids = None
        if self.accept(","):
            self.take("device_ids")
            self.take("=")
            ids = tuple(self.listing("[", "]", lambda: int(self.take())))
        self.take(">")
        return _Mesh(tuple(axes), ids)

    def _mesh_axis(self) -> tuple[str, int]:
        name = self.string()
        self.take("=")
        return name, int(self.take())

    def sharding_body(self) -> _Sharding:
        """`<@mesh or mesh<...>, [dims], replicated={...}, unreduced={...}>`."""
        self.take("<")
        if self.peek() == "mesh":
            self.take()
            mesh = self.mesh_body()
        else:
            mesh = self.take()[1:]
        self.take(",")
        dims = self.listing("[", "]", self._dimension)
        extra = {"replicated": (), "unreduced": ()}
        while self.accept(","):
            key = self.take()
            self.take("=")
            extra[key] = tuple(self.listing("{", "}", self._axis_or_open))
        self.take(">")
        return _Sharding(mesh, tuple(dims), extra["replicated"], extra["unreduced"])

    def _dimension(self) -> tuple[_AxisRef, ...]:
        axes = tuple(self.listing("{", "}", self._axis_or_open))
        if (self.peek() or "").startswith("p") and self.peek()[1:].isdigit():
            self.take()  # a propagation priority: no meaning once shardings are fixed
        return axes

    def _axis_or_open(self) -> _AxisRef | None:
        if self.accept("?"):
            return None  # an open dimension: propagation may add axes; none are there now
        name = self.string()
        if not self.accept(":"):
            return _AxisRef(name)
        self.take("(")
        pre = int(self.take())
        self.take(")")
        return _AxisRef(name, pre, int(self.take()))


def _sdy_kind(attr) -> tuple[str, str] | None:
    """("sharding", body text) for an `#sdy.sharding<...>` attribute; None for attributes of other dialects."""
    if not isinstance(attr, ir.OpaqueAttr) or attr.dialect_namespace != "sdy":
        return None
    data = bytes(attr.data).decode()
    kind = data.split("<", 1)[0]
    return kind, data[len(kind):]


def _shardings(attr) -> list[_Sharding]:
    """The shardings an `#sdy.sharding` or `#sdy.sharding_per_value` attribute holds."""
    kind, body = _sdy_kind(attr)
    reader = _SdyText(body)
    if kind == "sharding":
        return [reader.sharding_body()]
    reader.take("<")
    values = reader.listing("[", "]", reader.sharding_body)
    reader.take(">")
    return values


def _factors(mesh: _Mesh, refs: list[_AxisRef]) -> list[tuple[str, int, int]]:
    """The mesh axes cut where the sub-axes in `refs` need: (axis, pre-size, size), major to minor."""
    cuts = {name: {1, size} for name, size in mesh.axes}
    for ref in refs:
        if ref.size is not None:
            cuts[ref.name] |= {ref.pre, ref.pre * ref.size}
    factors = []
    for name, _ in mesh.axes:
        points = sorted(cuts[name])
        factors += [(name, a, b // a) for a, b in zip(points, points[1:])]
    return factors


def _hlo_sharding(sharding: _Sharding, meshes: dict[str, _Mesh]) -> str | None:
    """The HLO sharding text of a Shardy sharding (None where HLO has no plain form: unreduced axes)."""
    mesh = sharding.mesh if isinstance(sharding.mesh, _Mesh) else meshes[sharding.mesh]
    if sharding.unreduced:
        return None
    if not mesh.axes:
        return f"{{maximal device={mesh.device_ids[0]}}}" if mesh.device_ids else "{replicated}"
    refs = [ref for dim in sharding.dims for ref in dim]
    factors = _factors(mesh, refs + list(sharding.replicated))
    total = int(np.prod([size for _, size in mesh.axes]))
    ids = np.array(mesh.device_ids or range(total)).reshape([size for _, _, size in factors])

    def covered(ref: _AxisRef) -> list[int]:
        end = None if ref.size is None else ref.pre * ref.size
        return [i for i, (name, pre, _) in enumerate(factors)
                if name == ref.name and (end is None or ref.pre <= pre < end)]

    order, tiles = [], []
    for dim in sharding.dims:
        used = [i for ref in dim for i in covered(ref)]
        order += used
        tiles.append(int(np.prod([factors[i][2] for i in used])))
    rest = [i for i in range(len(factors)) if i not in order]
    replicas = int(np.prod([factors[i][2] for i in rest]))
    if all(t == 1 for t in tiles):
        return "{replicated}"
    tile = ids.transpose(order + rest).reshape(tiles + ([replicas] if replicas > 1 else []))
    devices = ",".join(str(int(d)) for d in tile.flatten())
    suffix = " last_tile_dim_replicate" if replicas > 1 else ""
    return f"{{devices=[{','.join(map(str, tile.shape))}]{devices}{suffix}}}"


def _sharding_attributes(attr, meshes: dict[str, _Mesh]) -> dict[str, ir.Attribute]:
    """`mhlo.sharding` (when HLO can say it) and `oxla.sharding` for an sdy sharding attribute."""
    texts = [_hlo_sharding(s, meshes) for s in _shardings(attr)]
    result = {SDY_SHARDING: ir.StringAttr.get(str(attr))}
    if all(t is not None for t in texts):
        hlo = texts[0] if _sdy_kind(attr)[0] == "sharding" else "{" + ", ".join(texts) + "}"
        result[SHARDING] = ir.StringAttr.get(hlo)
    return result


def _translated_dict(entries: list[tuple[str, ir.Attribute]], meshes: dict[str, _Mesh]) -> dict[str, ir.Attribute]:
    """Attribute entries with every sdy attribute replaced: shardings translated, others kept as text."""
    result = {}
    for name, attr in entries:
        kind = _sdy_kind(attr)
        if kind is None:
            result[name] = attr
        elif kind[0] in ("sharding", "sharding_per_value"):
            result.update(_sharding_attributes(attr, meshes))
        else:  # no HLO meaning oxla knows: kept, readable, under oxla's name
            result[f"oxla.{name}"] = ir.StringAttr.get(str(attr))
    return result


def _translate_dict_array(op, name: str, meshes: dict[str, _Mesh]) -> None:
    """Translates the sdy attributes in a function's arg_attrs or res_attrs."""
    if name not in op.attributes:
        return
    dicts = [ir.DictAttr(d) for d in ir.ArrayAttr(op.attributes[name])]
    translated = [_translated_dict([(n.name, n.attr) for n in d], meshes) for d in dicts]
    op.attributes[name] = ir.ArrayAttr.get([ir.DictAttr.get(d) for d in translated])


def _properties(op) -> dict[str, ir.Attribute]:
    """The inherent attributes of an unregistered op (the bindings do not expose them)."""
    first = op.get_asm(print_generic_op_form=True).split("\n", 1)[0]
    start = first.find("<{")
    if start < 0:
        return {}
    depth, quoted, end = 0, False, start
    for end in range(start, len(first)):
        ch = first[end]
        if quoted:
            quoted = ch != '"' or first[end - 1] == "\\"
        elif ch == '"':
            quoted = True
        elif ch in "<{[(":
            depth += 1
        elif ch in ">}])":
            depth -= 1
            if depth == 0:
                break
    with ir.allow_unregistered(), op.context:
        props = ir.DictAttr(ir.Attribute.parse(first[start + 1:end]))
    return {n.name: n.attr for n in props}


def _meshes(module: ir.Module) -> dict[str, _Mesh]:
    """The module's sdy.mesh ops by name; their text goes to the module attribute `oxla.meshes`."""
    meshes, texts = {}, {}
    for op in ir.ops(module):
        if op.name == "sdy.mesh":
            props = _properties(op)
            name = ir.StringAttr(props["sym_name"]).value
            meshes[name] = _SdyText(_sdy_kind(props["mesh"])[1]).mesh_body()
            texts[name] = ir.StringAttr.get(str(props["mesh"]))
    if texts:
        module.operation.attributes[MESHES] = ir.DictAttr.get(texts)
    return meshes


def _translate_sharding_attributes(module: ir.Module, meshes: dict[str, _Mesh]) -> None:
    """Replaces the sdy attributes of every op, function argument and function result."""
    for op in ir.ops(module):
        if op.name == "func.func":
            _translate_dict_array(op, "arg_attrs", meshes)
            _translate_dict_array(op, "res_attrs", meshes)
        entries = _readable_attributes(op)
        if any(_sdy_kind(a) for _, a in entries):
            for name, _ in entries:
                del op.attributes[name]
            for name, attr in _translated_dict(entries, meshes).items():
                op.attributes[name] = attr


def _readable_attributes(op) -> list[tuple[str, ir.Attribute]]:
    """(name, attribute) of an op's attributes, less those the bindings cannot hand to Python (complex dense
    values, never Shardy ones): left out here, they stay on the op untouched."""
    entries = []
    for name in op.attributes:
        try:
            entries.append((name, op.attributes[name]))
        except TypeError:
            continue
    return entries


def _rewrite_constructs(module: ir.Module, meshes: dict[str, _Mesh]) -> None:
    """Rewrites each op whose CONSTRUCTS entry has a rewrite (producers before their users)."""
    for op in ir.ops(module):
        entry = _BY_OP.get(_construct_of(op))
        if entry is not None and entry.rewrite is not None:
            entry.rewrite(op, meshes)


def _drop_mesh(op, meshes) -> None:
    """sdy.mesh: its text already went to the module's `oxla.meshes`."""
    op.erase()


def _sdy_constraint(op, meshes) -> None:
    """sdy.sharding_constraint / sdy.reshard: the sharding kept on the value, the op gone."""
    _keep_constraint(op, _sharding_attributes(_properties(op)["sharding"], meshes))


def _sharding_custom_call(op, meshes) -> None:
    """custom_call @Sharding or @xla.sdy.FuncResultSharding: the sharding kept on the value, the call gone."""
    kept = (SHARDING, "mhlo.frontend_attributes")  # the HLO sharding; Shardy's text, in XLA's round-trip form
    _keep_constraint(op, {name: op.attributes[name] for name in kept if name in op.attributes})


def _keep_constraint(op, shardings: dict[str, ir.Attribute]) -> None:
    """Replaces an identity op that constrains a sharding by its operand, the sharding kept in the IR.

    The producer of the value takes the sharding as its own (what `mhlo.sharding`
    on an op means to XLA) when it has one result and no other sharding;
    otherwise an identity `stablehlo.convert` carries it.
    """
    value = op.operands[0]
    producer = value.owner.operation if isinstance(value, ir.OpResult) else None
    fits = (producer is not None and len(producer.results) == 1
            and all(n not in producer.attributes or str(producer.attributes[n]) == str(a)
                    for n, a in shardings.items()))
    if fits:
        for name, attr in shardings.items():
            producer.attributes[name] = attr
    else:
        with ir.InsertionPoint(op), op.location:
            value = ir.Operation.create("stablehlo.convert", results=[value.type], operands=[value],
                                        attributes=shardings).result
    op.results[0].replace_all_uses_with(value)
    op.erase()


# ----------------------------------------------------------------------------
# JAX's calling convention
# ----------------------------------------------------------------------------


def _functions(module) -> list:
    """The func.func ops at the top of a module (given as a Module or its op)."""
    body = getattr(module, "operation", module).regions[0].blocks[0]
    return [op.operation for op in body.operations if op.operation.name == "func.func"]


def _entry_function(module: ir.Module):
    """The public entry, named `main` (renamed when JAX's has another name)."""
    functions = _functions(module)
    public = [f for f in functions if _visibility(f) == "public"]
    named = [f for f in functions if ir.StringAttr(f.attributes["sym_name"]).value == "main"]
    if named:
        entry = named[0]
    elif len(public) == 1:
        entry = public[0]
        old = ir.StringAttr(entry.attributes["sym_name"]).value
        ir.SymbolTable.replace_all_symbol_uses(old, "main", module.operation)
        entry.attributes["sym_name"] = ir.StringAttr.get("main")
    else:
        raise ValueError(f"the JAX module has {len(public)} public functions and none is named main")
    entry.attributes["sym_visibility"] = ir.StringAttr.get("public")
    return entry


def _visibility(func) -> str:
    """The function's sym_visibility ("public" when absent)."""
    attr = func.attributes["sym_visibility"] if "sym_visibility" in func.attributes else None
    return ir.StringAttr(attr).value if attr is not None else "public"


def _signature(func) -> tuple[list, list]:
    """(input types, result types) of a func.func."""
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    return list(ftype.inputs), list(ftype.results)


def _dict_list(func, name: str, count: int) -> list:
    """A function's arg_attrs or res_attrs as a list (empty dicts when absent)."""
    if name in func.attributes:
        return list(ir.ArrayAttr(func.attributes[name]))
    return [ir.DictAttr.get({}) for _ in range(count)]


def _retype(func, inputs: list, results: list, arg_attrs: list, res_attrs: list) -> None:
    """Sets a function's type and argument/result attributes."""
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
    func.attributes["arg_attrs"] = ir.ArrayAttr.get(arg_attrs)
    func.attributes["res_attrs"] = ir.ArrayAttr.get(res_attrs)


def _replace_arguments(func, make: Callable) -> None:
    """Replaces each argument for which make(argument, attrs) builds a value inside the body, and drops it."""
    block = func.regions[0].blocks[0]
    inputs, results = _signature(func)
    arg_attrs, res_attrs = _dict_list(func, "arg_attrs", len(inputs)), _dict_list(func, "res_attrs", len(results))
    for index in reversed(range(len(inputs))):
        argument = block.arguments[index]
        with ir.InsertionPoint.at_block_begin(block), argument.location:
            value = make(argument, ir.DictAttr(arg_attrs[index]))
        if value is None:
            continue
        argument.replace_all_uses_with(value)
        block.erase_argument(index)
        del inputs[index], arg_attrs[index]
    _retype(func, inputs, results, arg_attrs, res_attrs)


def _fix_platform_index(main, platforms: tuple[str, ...]) -> None:
    """A module lowered for several platforms takes the platform's index: fixed to the CPU lowering."""
    index = platforms.index("cpu") if "cpu" in platforms else 0

    def constant(argument, attrs):
        if "jax.global_constant" not in attrs or ir.StringAttr(attrs["jax.global_constant"]).value != "_platform_index":
            return None
        value = ir.DenseElementsAttr.get_splat(argument.type, ir.IntegerAttr.get(
            ir.RankedTensorType(argument.type).element_type, index))
        return ir.Operation.create("stablehlo.constant", results=[argument.type], attributes={"value": value}).result

    _replace_arguments(main, constant)


def _is_token(type_) -> bool:
    """Whether a type is StableHLO's token."""
    return str(type_) == "!stablehlo.token"


def _make_tokens_inside(main) -> None:
    """JAX's ordered effects thread tokens through main: made inside, dropped from the results."""
    _replace_arguments(main, lambda argument, attrs: ir.Operation.create(
        "stablehlo.after_all", results=[argument.type], operands=[]).result if _is_token(argument.type) else None)
    inputs, results = _signature(main)
    keep = [i for i, t in enumerate(results) if not _is_token(t)]
    if len(keep) == len(results):
        return
    res_attrs = _dict_list(main, "res_attrs", len(results))
    for block in main.regions[0].blocks:
        ret = block.operations[len(block.operations) - 1].operation
        with ir.InsertionPoint(ret), ret.location:
            ir.Operation.create("func.return", operands=[ret.operands[i] for i in keep])
        ret.erase()
    _retype(main, inputs, [results[i] for i in keep], _dict_list(main, "arg_attrs", len(inputs)),
            [res_attrs[i] for i in keep])


# ----------------------------------------------------------------------------
# Forms IREE does not take as JAX writes them
# ----------------------------------------------------------------------------


def _mark_broadcast_expansion(op, meshes) -> None:
    """dynamic_broadcast_in_dim: says which dimensions expand, from JAX's broadcasting rules.

    IREE lowers the op only when it knows; JAX broadcasts a dimension only
    from a static 1, so a dynamic operand dimension never expands.
    """
    if "known_expanding_dimensions" in op.attributes or "known_nonexpanding_dimensions" in op.attributes:
        return
    operand = ir.RankedTensorType(op.operands[0].type)
    result = ir.RankedTensorType(op.results[0].type)
    dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
    expanding, fixed = [], []
    for i, d in enumerate(dims):
        grows = not operand.is_dynamic_dim(i) and operand.shape[i] == 1 and (
            result.is_dynamic_dim(d) or result.shape[d] != 1)
        (expanding if grows else fixed).append(i)
    op.attributes["known_expanding_dimensions"] = ir.DenseI64ArrayAttr.get(expanding)
    op.attributes["known_nonexpanding_dimensions"] = ir.DenseI64ArrayAttr.get(fixed)
    _merge_broadcast_chain(op)


def _merge_broadcast_chain(op) -> None:
    """Broadcasts the inner operand of a dynamic_broadcast_in_dim of one directly.

    IREE merges such chains itself but drops the expansion attributes on the
    way, and then cannot lower the merged op; merged here, they are kept.
    """
    inner = op.operands[0].owner.operation if isinstance(op.operands[0], ir.OpResult) else None
    if inner is None or inner.name != "stablehlo.dynamic_broadcast_in_dim":
        return
    outer_grows, inner_grows = _expanding(op), _expanding(inner)
    if outer_grows is None or inner_grows is None:
        return
    outer_dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
    inner_dims = list(ir.DenseI64ArrayAttr(inner.attributes["broadcast_dimensions"]))
    grows = [i for i, d in enumerate(inner_dims) if i in inner_grows or d in outer_grows]
    op.operands[0] = inner.operands[0]
    op.attributes["broadcast_dimensions"] = ir.DenseI64ArrayAttr.get([outer_dims[d] for d in inner_dims])
    op.attributes["known_expanding_dimensions"] = ir.DenseI64ArrayAttr.get(grows)
    op.attributes["known_nonexpanding_dimensions"] = ir.DenseI64ArrayAttr.get(
        [i for i in range(len(inner_dims)) if i not in grows])
    if not list(inner.results[0].uses):
        inner.erase()


def _expanding(op) -> set[int] | None:
    """The operand dimensions a dynamic_broadcast_in_dim expands; None unless every dimension is marked."""
    marked = [set(ir.DenseI64ArrayAttr(op.attributes[name])) if name in op.attributes else None
              for name in ("known_expanding_dimensions", "known_nonexpanding_dimensions")]
    rank = ir.RankedTensorType(op.operands[0].type).rank
    if None in marked or len(marked[0] | marked[1]) != rank:
        return None
    return marked[0]


def _legalize_dynamic_reshape(op, meshes) -> None:
    """dynamic_reshape as IREE takes it: collapse to one dimension, expand to the requested sizes.

    IREE has no lowering of stablehlo.dynamic_reshape; tensor.collapse_shape
    and tensor.expand_shape (sizes read from the shape operand) it has.
    """
    operand, shape = op.operands
    source, result = ir.RankedTensorType(operand.type), ir.RankedTensorType(op.results[0].type)
    with ir.InsertionPoint(op), op.location:
        flat = operand
        if source.rank != 1:
            size = DYNAMIC if not source.has_static_shape else int(np.prod(source.shape))
            flat = _create("tensor.collapse_shape", ir.RankedTensorType.get([size], source.element_type), [operand],
                           reassociation=_groups([source.rank]))
        sizes = [_shape_element(shape, i) for i in range(result.rank) if result.is_dynamic_dim(i)]
        value = _create("tensor.expand_shape", result, [flat, *sizes], reassociation=_groups([result.rank]),
                        static_output_shape=ir.DenseI64ArrayAttr.get(result.shape))
    op.results[0].replace_all_uses_with(value)
    op.erase()


def _flatten_dynamic_dot(op, meshes) -> None:
    """dot_general over dynamic shapes as one batch, one free and one contracting dimension per side.

    IREE brings other dot_generals to that form with stablehlo.dynamic_reshape,
    which it then cannot lower when a dimension is dynamic; the transposes and
    tensor.collapse_shape / expand_shape done here it lowers.
    """
    lhs, rhs = op.operands
    lt, rt = ir.RankedTensorType(lhs.type), ir.RankedTensorType(rhs.type)
    numbers = op.opview.dot_dimension_numbers
    lb, rb = list(numbers.lhs_batching_dimensions), list(numbers.rhs_batching_dimensions)
    lc, rc = list(numbers.lhs_contracting_dimensions), list(numbers.rhs_contracting_dimensions)
    lf = [d for d in range(lt.rank) if d not in lb + lc]
    rf = [d for d in range(rt.rank) if d not in rb + rc]
    if (lt.has_static_shape and rt.has_static_shape) or not (lf and rf and lc) or all(
            len(g) <= 1 for g in (lb, lf, lc, rf)):
        return  # static, or already a (batch) matrix product IREE lowers without reshapes
    result = ir.RankedTensorType(op.results[0].type)
    with ir.InsertionPoint(op), op.location:
        a = _collapse(_transposed(lhs, lb + lf + lc), [len(lb), len(lf), len(lc)])
        b = _collapse(_transposed(rhs, rb + rc + rf), [len(rb), len(rc), len(rf)])
        at, bt = ir.RankedTensorType(a.type), ir.RankedTensorType(b.type)
        batch = [0] if lb else []
        shape = at.shape[:len(batch) + 1] + [bt.shape[-1]]
        extra = {name: op.attributes[name] for name in ("precision_config", "algorithm") if name in op.attributes}
        product = shlo.dot_general(a, b, dot_dimension_numbers=shlo.DotDimensionNumbers(
            batch, batch, [len(batch) + 1], [len(batch)]), result_types=[ir.RankedTensorType.get(
                shape, result.element_type)], **extra)
        sources = [(lhs, d) for d in lb + lf] + [(rhs, d) for d in rf]  # where each result dimension comes from
        sizes = [_dimension(*sources[i]) for i in range(result.rank) if result.is_dynamic_dim(i)]
        groups = [g for g in (lb, lf, rf) if g]
        value = _create("tensor.expand_shape", result, [product, *sizes],
                        reassociation=_groups([len(g) for g in groups]),
                        static_output_shape=ir.DenseI64ArrayAttr.get(result.shape))
    op.results[0].replace_all_uses_with(value)
    op.erase()


def _flatten_dynamic_gather(op, meshes) -> None:
    """gather of single start indices over dynamic shapes: the indices as one dynamic list, the result expanded.

    IREE brings gathers to that form with stablehlo.reshape, which must be
    static; tensor.collapse_shape / expand_shape it lowers.
    """
    operand, indices = op.operands
    it, result = ir.RankedTensorType(indices.type), ir.RankedTensorType(op.results[0].type)
    numbers = op.opview.dimension_numbers
    vector_dim = numbers.index_vector_dim
    single = vector_dim == it.rank or it.shape[vector_dim] == 1
    if it.has_static_shape or not single or numbers.operand_batching_dims or (
            vector_dim == it.rank and it.rank == 1):
        return  # static, several start indices, batched, or already the form IREE lowers
    batch = [d for d in range(it.rank) if d != vector_dim]
    offsets = list(numbers.offset_dims)
    batch_dims = [d for d in range(result.rank) if d not in offsets]  # result dimensions indexed by `batch`
    with ir.InsertionPoint(op), op.location:
        flat = _collapse(_transposed(indices, batch + [vector_dim] if vector_dim < it.rank else batch), [it.rank])
        count = ir.RankedTensorType(flat.type).shape[0]
        gathered = shlo.gather(operand, flat, dimension_numbers=shlo.GatherDimensionNumbers(
            offset_dims=list(range(1, len(offsets) + 1)), collapsed_slice_dims=list(numbers.collapsed_slice_dims),
            start_index_map=list(numbers.start_index_map), index_vector_dim=1),
            slice_sizes=list(op.opview.slice_sizes), indices_are_sorted=op.opview.indices_are_sorted,
            result_types=[ir.RankedTensorType.get([count] + [result.shape[d] for d in offsets], result.element_type)])
        order = batch_dims + offsets  # the expanded value's dimensions, as result dimensions
        shape = [result.shape[d] for d in order]
        sizes = [_dimension(indices, batch[i]) for i, d in enumerate(batch_dims) if result.is_dynamic_dim(d)]
        expanded = _create("tensor.expand_shape", ir.RankedTensorType.get(shape, result.element_type),
                           [gathered, *sizes], reassociation=_groups([len(batch)] + [1] * len(offsets)),
                           static_output_shape=ir.DenseI64ArrayAttr.get(shape))
        value = _transposed(expanded, [order.index(d) for d in range(result.rank)])
    op.results[0].replace_all_uses_with(value)
    op.erase()


def _transposed(value: ir.Value, order: list[int]) -> ir.Value:
    """value with its dimensions in `order` (the value itself when that is the identity)."""
    return value if order == sorted(order) else shlo.transpose(value, permutation=order)


def _collapse(value: ir.Value, sizes: list[int]) -> ir.Value:
    """value with consecutive groups of `sizes` dimensions (empty groups skipped) collapsed into one each."""
    sizes = [s for s in sizes if s]
    if all(s == 1 for s in sizes):
        return value
    tensor = ir.RankedTensorType(value.type)
    dims, start = [], 0
    for size in sizes:
        group = tensor.shape[start:start + size]
        dims.append(DYNAMIC if any(tensor.is_dynamic_dim(d) for d in range(start, start + size))
                    else int(np.prod(group)))
        start += size
    return _create("tensor.collapse_shape", ir.RankedTensorType.get(dims, tensor.element_type), [value],
                   reassociation=_groups(sizes))


def _dimension(value: ir.Value, index: int) -> ir.Value:
    """The size of dimension `index` of a tensor, as an index value."""
    index_type = ir.IndexType.get()
    position = _create("arith.constant", index_type, [], value=ir.IntegerAttr.get(index_type, index))
    return _create("tensor.dim", index_type, [value, position])


DYNAMIC = ir.ShapedType.get_dynamic_size()


def _create(name: str, result_type, operands: list, **attributes) -> ir.Value:
    """One op of one result, built at the current insertion point."""
    return ir.Operation.create(name, results=[result_type], operands=operands, attributes=attributes).result


def _groups(sizes: list[int]) -> ir.ArrayAttr:
    """A reassociation: consecutive dimensions in groups of `sizes`."""
    i64 = ir.IntegerType.get_signless(64)
    groups, start = [], 0
    for size in sizes:
        groups.append(ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in range(start, start + size)]))
        start += size
    return ir.ArrayAttr.get(groups)


def _shape_element(shape: ir.Value, index: int) -> ir.Value:
    """Element `index` of a 1-D shape tensor, as an index value."""
    index_type = ir.IndexType.get()
    position = _create("arith.constant", index_type, [], value=ir.IntegerAttr.get(index_type, index))
    element_type = ir.RankedTensorType(shape.type).element_type
    element = _create("tensor.extract", element_type, [shape, position])
    if isinstance(element_type, ir.IndexType):
        return element
    return _create("arith.index_cast", index_type, [element])


CONSTRUCTS: tuple[Construct, ...] = (
    Construct("sdy.mesh", "translated", f"removed; its text is kept in the module attribute `{MESHES}`", _drop_mesh),
    Construct("#sdy.sharding, #sdy.sharding_per_value", "translated",
              f"on arguments, results and ops: `{SHARDING}` (HLO sharding text), the Shardy text in "
              f"`{SDY_SHARDING}`; shardings with unreduced axes keep only `{SDY_SHARDING}`"),
    Construct("other #sdy attributes", "kept", "as text, renamed `oxla.sdy.<name>`"),
    Construct("sdy.sharding_constraint", "legalized", "the sharding moves to the value's producer (or an identity "
              "stablehlo.convert), the op goes", _sdy_constraint),
    Construct("sdy.reshard", "legalized", "as sdy.sharding_constraint", _sdy_constraint),
    Construct("sdy.manual_computation", "unsupported", "shard_map: per-device code needs SPMD partitioning"),
    Construct("sdy.sharding_group", "unsupported", "shard_alike: a propagation constraint with no HLO form"),
    Construct("stablehlo.custom_call @Sharding", "legalized",
              "with_sharding_constraint without Shardy: as sdy.sharding_constraint", _sharding_custom_call),
    Construct("stablehlo.custom_call @xla.sdy.FuncResultSharding", "legalized",
              "Shardy in XLA's round-trip form (artifacts serialized without Shardy ops): as @Sharding, with its "
              "`mhlo.frontend_attributes`", _sharding_custom_call),
    Construct("stablehlo.custom_call @SPMDFullToShardShape", "unsupported", "shard_map without Shardy"),
    Construct("stablehlo.custom_call @SPMDShardToFullShape", "unsupported", "shard_map without Shardy"),
    Construct("stablehlo.custom_call @shape_assertion", "kept", "shape-polymorphism checks: IREE drops them; "
              "the imported model checks dimension variables when called"),
    Construct(LAPACK_CALLS, "legalized",
              "jnp.linalg and jax.scipy.linalg on CPU (solve, inv, det, cholesky, qr, eigh, svd, pinv, lstsq, lu, "
              "solve_triangular, hessenberg, ...; eigh of symmetric and Hermitian matrices, svd of real and "
              "complex ones): rewritten as StableHLO loops by oxla-legalize-lapack-calls when compiled (f32 potrf, "
              "getrf, geqrf, orgqr, trsm, syevd and gesdd, and c64 potrf, getrf, geqrf, ungqr, trsm, heevd and "
              "gesdd, on llvm-cpu as one dispatch each or a few, oxla-llvmcpu-lapack-kernels)"),
    Construct("stablehlo.custom_call @<other targets>", "unsupported",
              "platform kernels (the other lapack_* routines: eig, schur, ...; cu*, hipsolver*, ...) "
              "and host callbacks"),
    Construct("stablehlo.dynamic_broadcast_in_dim", "legalized",
              "shape polymorphism: expanding dimensions marked from JAX's broadcasting rules",
              _mark_broadcast_expansion),
    Construct("stablehlo.dynamic_reshape", "legalized", "shape polymorphism: tensor.collapse_shape to one "
              "dimension, then tensor.expand_shape to the sizes of the shape operand", _legalize_dynamic_reshape),
    Construct("stablehlo.dot_general", "legalized", "over dynamic shapes: transposed and collapsed to one batch, "
              "free and contracting dimension per side (IREE would reshape dynamically)", _flatten_dynamic_dot),
    Construct("stablehlo.gather", "legalized", "over dynamic shapes, with one start index per row (jnp.take): the "
              "indices collapsed to one list, the result expanded (IREE would reshape dynamically)",
              _flatten_dynamic_gather),
    Construct("stablehlo.composite", "kept", "IREE inlines the decomposition; `chlo.top_k` ones oxla-legalize-top-k "
              "rewrites (XLA's order of NaN and equal values)"),
    Construct("symbolic dimensions", "kept", "dynamic dimensions (`?`); jax.uses_shape_polymorphism kept"),
    Construct("platform index argument", "legalized",
              "exports for several platforms: fixed to the cpu lowering (else the first)"),
    Construct("!stablehlo.token arguments and results", "legalized",
              "ordered effects: tokens made inside main by stablehlo.after_all, dropped from the results"),
    Construct("entry function", "legalized", "the public entry is named `main` and public"),
)
_BY_OP = {c.op: c for c in CONSTRUCTS}


# ----------------------------------------------------------------------------
# Flattening arguments and folding results
# ----------------------------------------------------------------------------


@dataclass
class _Leaf:
    """One flat input of main: its name, shape (ints, dimension-variable names, None), dtype, weak typing."""

    name: str
    shape: tuple
    dtype: np.dtype
    weak: bool = False

    def describe(self) -> str:
        """dtype[dims] as messages print it."""
        return f"{self.dtype}[{','.join('?' if d is None else str(d) for d in self.shape)}]"


class _CallingConvention:
    """How arguments become main's flat arrays and its results the function's pytree."""

    def __init__(self, leaves, output_names, in_tree=None, out_tree=None, kept=None, params=None):
        self.leaves, self.output_names = leaves, output_names
        self.in_tree, self.out_tree, self.kept, self.params = in_tree, out_tree, kept, params
        self.jax_arrays_in = False

    @staticmethod
    def of(exported, main, params: list[str] | None) -> "_CallingConvention":
        """From the Exported's trees and avals, or from main's types alone for a bare artifact."""
        inputs, results = _signature(main)
        output_names = _result_names(main, len(results))
        locations = _argument_names(main)
        if exported is None:
            leaves = [_Leaf(locations[i] or f"arg{i}", _mlir_shape(t), _mlir_dtype(t)) for i, t in enumerate(inputs)]
            return _CallingConvention(leaves, output_names)
        paths = _tree_paths(exported.in_tree)
        kept = sorted(exported.module_kept_var_idx)
        params = params or _params_from_locations(paths, kept, locations)
        leaves = []
        for position, index in enumerate(kept):
            aval = exported.in_avals[index]
            shape = tuple(d if isinstance(d, int) else str(d) for d in aval.shape)
            leaves.append(_Leaf(_path_name(paths[index], params), shape, np.dtype(aval.dtype), aval.weak_type))
        return _CallingConvention(leaves, output_names, exported.in_tree, exported.out_tree, kept, params)

    def flatten(self, *args, **kwargs) -> list[np.ndarray]:
        """The flat numpy arrays main takes; ValueError naming the argument that does not fit."""
        given, names = self._given(args, kwargs)
        self.jax_arrays_in = any(isinstance(x, jax.Array) for x in given)
        arrays = [_as_array(leaf, name, value) for leaf, name, value in zip(self.leaves, names, given)]
        self._check(arrays, names)
        return arrays

    def check(self, *args, **kwargs) -> None:
        """ValueError naming the first argument (arrays or jax.ShapeDtypeStruct) that does not fit."""
        given, names = self._given(args, kwargs)
        self._check([v if hasattr(v, "shape") and hasattr(v, "dtype") else _as_array(leaf, name, v)
                     for leaf, name, v in zip(self.leaves, names, given)], names)

    def _given(self, args: tuple, kwargs: dict) -> tuple[list, list[str]]:
        """The leaves main takes, from the arguments, with their names."""
        if self.in_tree is not None:
            return self._leaves_of(args, kwargs)
        if kwargs:
            raise ValueError("a bare portable artifact takes positional arrays only")
        if len(args) != len(self.leaves):
            raise ValueError(f"expected {len(self.leaves)} array argument(s), got {len(args)}")
        return list(args), [leaf.name for leaf in self.leaves]

    def _check(self, values: list, names: list[str]) -> None:
        """ValueError unless each value has its leaf's dtype and shape, dimension variables bound consistently."""
        env: dict[str, tuple[int, str]] = {}
        for leaf, name, value in zip(self.leaves, names, values):
            shape = tuple(value.shape)
            fits = np.dtype(value.dtype) == leaf.dtype and len(shape) == len(leaf.shape) and all(
                _dimension_fits(want, got, name, env) for want, got in zip(leaf.shape, shape))
            if not fits:
                got = ",".join(map(str, shape))
                raise ValueError(f"{name}: expected {leaf.describe()}, got {np.dtype(value.dtype)}[{got}]")

    def _leaves_of(self, args: tuple, kwargs: dict) -> tuple[list, list[str]]:
        """The kept leaves of (args, kwargs) and their names; ValueError when the pytree differs."""
        flat, tree = jax.tree_util.tree_flatten_with_path((args, kwargs))
        if tree != self.in_tree:
            expected = {_path_name(p, self.params) for p in _tree_paths(self.in_tree)}
            got = {_path_name(p, self.params) for p, _ in flat}
            missing, extra = sorted(expected - got), sorted(got - expected)
            detail = (f"missing {', '.join(missing)}" if missing else "") + ("; " if missing and extra else "") + (
                f"unexpected {', '.join(extra)}" if extra else "")
            raise ValueError(f"the arguments do not have the example's structure: "
                             f"{detail or f'expected {self.in_tree}, got {tree}'}")
        return [flat[i][1] for i in self.kept], [leaf.name for leaf in self.leaves]

    def unflatten(self, outputs: list) -> object:
        """main's results as the function's output pytree, jax arrays when jax arrays came in."""
        arrays = [np.asarray(o) for o in outputs]
        if self.jax_arrays_in:
            arrays = [jax.numpy.asarray(a) for a in arrays]
        if self.out_tree is not None:
            return jax.tree_util.tree_unflatten(self.out_tree, arrays)
        return arrays[0] if len(arrays) == 1 else tuple(arrays)


def _as_array(leaf: _Leaf, name: str, value) -> np.ndarray:
    """`value` as a numpy array, converted as jax.jit converts (Python numbers, float64 without x64)."""
    if isinstance(value, (bool, int, float, complex)) and leaf.weak:
        return np.asarray(value, dtype=leaf.dtype)
    try:
        array = np.asarray(value)
        canonical = jax.dtypes.canonicalize_dtype(array.dtype)
    except Exception as exc:  # objects numpy or jax cannot take as arrays
        raise ValueError(f"{name}: expected {leaf.describe()}, got {type(value).__name__} ({exc})") from None
    return array.astype(leaf.dtype) if array.dtype != leaf.dtype and canonical == leaf.dtype else array


def _dimension_fits(want, got, name: str, env: dict) -> bool:
    """Whether a given size fits a dimension: equal to a static one, consistent for a dimension variable."""
    if not isinstance(got, (int, np.integer)):
        return str(got) == str(want)  # a symbolic dimension of a jax.ShapeDtypeStruct
    if isinstance(want, int):
        return want == got
    if want is None or not want.isidentifier():
        return True  # an expression of dimension variables: checked through its variables
    if want in env and env[want][0] != got:
        raise ValueError(f"{name}: dimension {want!r} is {got} here but {env[want][0]} in {env[want][1]}")
    env.setdefault(want, (got, name))
    return got >= 1


def _mlir_shape(type_) -> tuple:
    """A tensor type's shape, None for dynamic dimensions."""
    tensor = ir.RankedTensorType(type_)
    return tuple(None if tensor.is_dynamic_dim(i) else tensor.shape[i] for i in range(tensor.rank))


def _mlir_dtype(type_) -> np.dtype:
    """A tensor type's element type as a numpy dtype."""
    return to_numpy_dtype(ir.RankedTensorType(type_).element_type)


def _tree_paths(tree) -> list[tuple]:
    """The key path of every leaf of a pytree definition."""
    placeholder = tree.unflatten(range(tree.num_leaves))
    return [path for path, _ in jax.tree_util.tree_flatten_with_path(placeholder)[0]]


def _path_name(path: tuple, params: list[str] | None) -> str:
    """A leaf of (args, kwargs) named as JAX names arguments: "params['dense']['w']", "x", "kw['k']"."""
    (top, *rest) = path
    if top.idx == 1:  # a keyword argument
        return f"{rest[0].key}{jax.tree_util.keystr(tuple(rest[1:]))}"
    position = rest[0].idx
    head = params[position] if params and position < len(params) else f"args[{position}]"
    return f"{head}{jax.tree_util.keystr(tuple(rest[1:]))}"


def _params_from_locations(paths: list[tuple], kept: list[int], names: list[str | None]) -> list[str] | None:
    """The positional parameter names, read off JAX's argument names ("p['b']" with path ['b'] -> "p")."""
    params: dict[int, str] = {}
    for position, index in enumerate(kept):
        top, *rest = paths[index]
        suffix = jax.tree_util.keystr(tuple(rest[1:]))
        name = names[position] if position < len(names) else None
        if top.idx == 0 and name and name.endswith(suffix):
            params.setdefault(rest[0].idx, name[:len(name) - len(suffix)] if suffix else name)
    if not params:
        return None
    return [params.get(i, f"args[{i}]") for i in range(max(params) + 1)]


def _location_name(location) -> str | None:
    """The name of a plain name location (JAX names arguments so), else None."""
    name = getattr(location, "name_str", None)
    if name is None or str(location.child_loc) != "loc(unknown)":
        return None
    return name


def _argument_names(main) -> list[str | None]:
    """main's argument names from their locations, through the call into JAX's wrapped main when needed."""
    block = main.regions[0].blocks[0]
    names = [_location_name(a.location) for a in block.arguments]
    module = main.parent
    for op in block.operations:
        op = op.operation
        if op.name != "func.call":
            continue
        callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
        target = next((f for f in _functions(module) if ir.StringAttr(f.attributes["sym_name"]).value == callee), None)
        if target is None:
            continue
        for j, operand in enumerate(op.operands):
            if isinstance(operand, ir.BlockArgument) and operand.owner == block and names[operand.arg_number] is None:
                names[operand.arg_number] = _location_name(target.regions[0].blocks[0].arguments[j].location)
    return names


def _result_names(main, count: int) -> list[str]:
    """main's result names from JAX's `jax.result_info` ("result['y']"), else result<i>."""
    names = []
    for i, attrs in enumerate(_dict_list(main, "res_attrs", count)):
        attrs = ir.DictAttr(attrs)
        info = ir.StringAttr(attrs["jax.result_info"]).value if "jax.result_info" in attrs else ""
        names.append(info or f"result{i}")
    return names
