"""StableHLO portable artifacts (VHLO) to ordinary StableHLO + func.

`jax.export` writes programs as VHLO bytecode: versioned ops (`vhlo.add_v1`),
types (`!vhlo.tensor_v1<2x!vhlo.f32_v1>`) and attributes
(`#vhlo.integer_v1<1 : i64>`). IREE's wheel loads that dialect but not the
upstream `vhlo-legalize-to-stablehlo` pass, so oxla converts by itself:

1. print the VHLO module in generic form with locations;
2. rewrite that text: op names, types and attributes become StableHLO, func
   and builtin ones, with the op-specific attribute rules of `_RULES`
   (dimension numbers bundled into `#stablehlo.dot<...>`, dense tensors into
   `array<i64: ...>`, VHLO's spelled-out defaults dropped...);
3. parse the result in the same context, and check that StableHLO kept every
   attribute (unknown properties are dropped silently by the parser).

Locations travel untouched, as text. Anything that cannot be converted raises
`ParseError` naming the VHLO op; nothing is dropped without a rule saying so.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from typing import Callable, NamedTuple

from oxla import ir
from oxla.diagnostics import Diagnostic, SourceLocation
from oxla.errors import ParseError

__all__ = ["is_vhlo", "to_stablehlo"]


# ----------------------------------------------------------------------------
# Public API
# ----------------------------------------------------------------------------


def is_vhlo(module) -> bool:
    """True when the module (or op) holds any op of the `vhlo` dialect."""
    found = False

    def visit(op):
        nonlocal found
        if op.name.startswith("vhlo."):
            found = True
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    _operation(module).walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def to_stablehlo(module) -> ir.Module:
    """Returns a StableHLO + func copy of a VHLO module; raises ParseError if it can't."""
    original = _operation(module)
    _load_target_dialects()
    text = ir.to_text(original, generic=True, debug_info=True)
    converter = _Converter(text)
    try:
        converted = converter.run()
    except _Unconvertible as exc:
        raise _conversion_error(original, converter.current_op, exc.message) from None
    except (ValueError, LookupError, struct.error) as exc:  # VHLO text this converter misreads
        raise _conversion_error(original, converter.current_op, f"unexpected VHLO text ({exc})") from None
    try:
        result = ir.parse(converted, name=_BUFFER_NAME)
    except ParseError as exc:
        raise _reparse_error(exc, text) from None
    _check_attributes_kept(result, converter.emitted, original)
    return result


# ----------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------

# The name of the converted text when it is parsed: diagnostics there point into it.
_BUFFER_NAME = "<vhlo-to-stablehlo>"


class _Unconvertible(Exception):
    """Something in the VHLO text has no StableHLO counterpart."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _operation(module_or_op):
    """Accepts a Module, an OpView or an Operation; returns the Operation."""
    return getattr(module_or_op, "operation", module_or_op)


def _load_target_dialects() -> None:
    """Loads the dialects the output uses, so the registry can answer for their ops."""
    ctx = ir.context()
    for name in ("func", "stablehlo"):
        ctx.dialects[name]


def _ops_in_order(root) -> list:
    """Every op under (and including) root, in the order generic text prints them."""
    ops = []

    def visit(op):
        ops.append(op)
        return ir.WalkResult.ADVANCE

    _operation(root).walk(visit, ir.WalkOrder.PRE_ORDER)
    return ops


def _conversion_error(original, op_index: int | None, detail: str) -> ParseError:
    """A ParseError naming the VHLO op (by its print-order index) and pointing at its location."""
    ops = _ops_in_order(original) if op_index is not None else []
    op = ops[op_index] if op_index is not None and 0 <= op_index < len(ops) else None
    subject = f"'{op.name}'" if op is not None else "the portable artifact"
    message = f"cannot convert {subject} to StableHLO: {detail}"
    location = SourceLocation.of(op.location) if op is not None else SourceLocation()
    return ParseError(message, [Diagnostic.error(message, location)])


def _reparse_error(exc: ParseError, vhlo_text: str) -> ParseError:
    """Names the VHLO op behind a failure to parse the converted text.

    The converted text keeps the line structure of the VHLO text, so a
    diagnostic at line N of one is about the op at line N of the other.
    Verifier diagnostics carry the ops' own locations instead.
    """
    lines = vhlo_text.splitlines()
    for diag in exc.diagnostics:
        if diag.location.file == _BUFFER_NAME and 0 < diag.location.line <= len(lines):
            match = re.search(r'"(vhlo\.[^"]+)"', lines[diag.location.line - 1])
            if match:
                return ParseError(f"cannot convert '{match.group(1)}' to StableHLO: {diag.message}", exc.diagnostics)
    return ParseError(f"the portable artifact converts to invalid StableHLO: {exc}", exc.diagnostics)


def _check_attributes_kept(result: ir.Module, emitted: list[list[str]], original) -> None:
    """Fails when StableHLO dropped a property the converter wrote (its parser does so silently)."""
    ops = _ops_in_order(result)
    if len(ops) != len(emitted):
        raise _conversion_error(original, None, f"internal error: wrote {len(emitted)} ops, parsed {len(ops)}")
    for index, (op, names) in enumerate(zip(ops, emitted)):
        missing = sorted(set(names) - set(op.attributes))
        if missing:
            detail = f"'{op.name}' of this compiler has no attribute {', '.join(repr(m) for m in missing)}"
            raise _conversion_error(original, index, detail)


# ----------------------------------------------------------------------------
# Lexer over MLIR's generic text
# ----------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
      (?P<string>"(?:[^"\\]|\\.)*")
    | (?P<arrow>->)
    | (?P<meta>\{-\#)
    | (?P<sym>@"(?:[^"\\]|\\.)*")
    | (?P<sigil>[\#!%^@][\w.$-]*(?:\#\d+)?)
    | (?P<word>[\w.$+-]+)
    | (?P<punct>\S)
    """,
    re.VERBOSE | re.DOTALL,
)
_SPACE = re.compile(r"\s*")

_OPENERS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_CLOSERS = set(_OPENERS.values())


class _Token(NamedTuple):
    """One token: its text and the blanks before it (copied where layout matters)."""

    text: str
    lead: str


def _tokenize(text: str) -> list[_Token]:
    """Splits generic MLIR text into tokens; an empty token marks the end."""
    tokens = []
    pos = 0
    while True:
        blank = _SPACE.match(text, pos)
        pos = blank.end()
        if pos >= len(text):
            tokens.append(_Token("", blank.group()))
            return tokens
        match = _TOKEN.match(text, pos)
        tokens.append(_Token(match.group(), blank.group()))
        pos = match.end()


# ----------------------------------------------------------------------------
# Converted attributes
# ----------------------------------------------------------------------------


@dataclass
class _Attr:
    """An attribute after conversion: StableHLO text, plus what rules need to inspect.

    `kind` is the VHLO attribute it came from ("array", "dict", "string",
    "bool", "int", "float", "tensor", "type", "enum", ...) or "raw" for
    attributes of other dialects, which pass through unchanged. `value` is
    kind-specific: items of an array, (key, _Attr) pairs of a dict, the
    Python value of a bool/int/string, (kind, case) of an enum, the type text
    of a type (None for VHLO's none type), the printed dense of a tensor.
    """

    kind: str
    text: str
    value: object = None

    @property
    def is_none(self) -> bool:
        """VHLO spells "no value" of optional inherent attributes as the none type."""
        return self.kind == "type" and self.value is None


_BARE_ID = re.compile(r"[A-Za-z_][\w$.]*")
_SIMPLE_ESCAPES = {"n": b"\n", "t": b"\t", '"': b'"', "\\": b"\\"}


def _unquote(literal: str) -> str:
    """Decodes an MLIR string literal (with its quotes) into a Python string."""
    out = bytearray()
    i = 1
    while i < len(literal) - 1:
        ch = literal[i]
        if ch != "\\":
            out += ch.encode("utf-8")
            i += 1
            continue
        escaped = literal[i + 1]
        if escaped in _SIMPLE_ESCAPES:
            out += _SIMPLE_ESCAPES[escaped]
            i += 2
        else:
            out.append(int(literal[i + 1 : i + 3], 16))
            i += 3
    return out.decode("utf-8", errors="surrogateescape")


def _name_text(literal: str) -> str:
    """An attribute-dictionary key: bare when MLIR allows it, quoted otherwise."""
    name = _unquote(literal)
    return name if _BARE_ID.fullmatch(name) else literal


def _symbol_text(literal: str) -> str:
    """A symbol reference (`@name` or `@"name"`) from a VHLO string literal."""
    name = _unquote(literal)
    return "@" + (name if _BARE_ID.fullmatch(name) else literal)


def _dense_values(attr: _Attr) -> list:
    """The elements of a converted tensor attribute, splats expanded (ints and bools)."""
    match = re.fullmatch(r"dense<(.*)>\s*:\s*tensor<((?:\d+x)*)(\w+)>", attr.text, re.DOTALL)
    if attr.kind != "tensor" or not match:
        raise _Unconvertible(f"expected a VHLO tensor of integers, got {attr.text}")
    body, dims, element = match.groups()
    count = math.prod(int(d) for d in dims.split("x") if d)
    if body.startswith('"0x'):
        values = _hex_values(bytes.fromhex(body[3:-1]), element)
    else:
        values = [v == "true" if v in ("true", "false") else int(v) for v in re.findall(r"true|false|-?\d+", body)]
    if len(values) == 1 and count != 1:
        values = values * count
    return values


def _hex_values(data: bytes, element: str) -> list[int]:
    """Decodes the little-endian hex form MLIR prints large dense integers in."""
    code = _HEX_FORMATS.get(element)
    if code is None:
        raise _Unconvertible(f"unsupported element type {element} in a hex dense attribute")
    return list(struct.unpack(f"<{len(data) // struct.calcsize(code)}{code}", data))


_HEX_FORMATS = {"i8": "b", "i16": "h", "i32": "i", "i64": "q", "index": "q", "ui8": "B", "ui16": "H", "ui32": "I", "ui64": "Q"}


def _int_value(attr: _Attr) -> int:
    """The integer of a VHLO integer attribute."""
    if attr.kind != "int":
        raise _Unconvertible(f"expected a VHLO integer, got {attr.text}")
    return attr.value


def _bool_text(value: bool) -> str:
    """MLIR spelling of a boolean."""
    return "true" if value else "false"


def _list_text(values) -> str:
    """`[1, 2]` as the struct attributes of StableHLO write integer lists."""
    return "[" + ", ".join(str(v) for v in values) + "]"


# ----------------------------------------------------------------------------
# Types and attributes tables
# ----------------------------------------------------------------------------

_SCALAR_TYPES = {
    "bool_v1": "i1",
    "index_v1": "index",
    "none_v1": "none",
    "token_v1": "!stablehlo.token",
    "witness_v1": "!shape.witness",
    "bf16_v1": "bf16",
    "f16_v1": "f16",
    "f32_v1": "f32",
    "f64_v1": "f64",
    "tf31_v1": "tf32",  # sic: VHLO's mnemonic for tf32
    **{f"{name}_v1": name for name in (
        "f4E2M1FN", "f6E2M3FN", "f6E3M2FN", "f8E3M4", "f8E4M3", "f8E4M3FN", "f8E5M2",
        "f8E4M3FNUZ", "f8E4M3B11FNUZ", "f8E5M2FNUZ", "f8E8M0FNU",
    )},
    **{f"{sign}i{bits}_v1": f"{sign}i{bits}" for sign in ("", "u") for bits in (2, 4, 8, 16, 32, 64)},
}

# custom_call's api_version is a plain i32 in StableHLO: the case's number.
_API_VERSIONS = (
    "API_VERSION_UNSPECIFIED",
    "API_VERSION_ORIGINAL",
    "API_VERSION_STATUS_RETURNING",
    "API_VERSION_STATUS_RETURNING_UNIFIED",
    "API_VERSION_TYPED_FFI",
)


def _api_version_text(case: str) -> str:
    """custom_call's api_version case as the i32 StableHLO stores."""
    if case not in _API_VERSIONS:
        raise _Unconvertible(f"unknown custom_call api_version {case}")
    return f"{_API_VERSIONS.index(case)} : i32"


# VHLO enum attribute mnemonic -> how StableHLO spells a case of it.
_ENUMS: dict[str, Callable[[str], str]] = {
    **{
        f"{kind}_v1": (lambda case, kind=kind: f"#stablehlo<{kind} {case}>")
        for kind in ("comparison_direction", "comparison_type", "fft_type", "precision",
                     "rng_algorithm", "rng_distribution", "transpose")
    },
    "result_accuracy_mode_v1": lambda case: f"#stablehlo.result_accuracy_mode<{case}>",
    "api_version_v1": _api_version_text,
}

# Struct-like VHLO attributes: StableHLO mnemonic and parameter renames.
_STRUCTS = {
    "output_operand_alias_v1": ("#stablehlo.output_operand_alias", {
        "outputTupleIndices": "output_tuple_indices",
        "operandIndex": "operand_index",
        "operandTupleIndices": "operand_tuple_indices",
    }),
    "result_accuracy_v1": ("#stablehlo.result_accuracy", {"atol": "atol", "rtol": "rtol", "ulps": "ulps", "mode": "mode"}),
    "axis_ref_v1": ("#stablehlo.axis_ref", {"name": "name", "sub_axis_info": "sub_axis_info"}),
    "mesh_axis_v1": ("#stablehlo.mesh_axis", {"name": "name", "size": "size"}),
    "mesh_v1": ("#stablehlo.mesh", {"axes": "axes", "device_ids": "device_ids"}),
    "replica_group_mesh_axes_v1": ("#stablehlo.replica_group_mesh_axes", {"mesh": "mesh", "axes": "axes"}),
}


# ----------------------------------------------------------------------------
# Op rules
# ----------------------------------------------------------------------------


def _is_bool(value: bool) -> Callable[[_Attr], bool]:
    """Predicate: the attribute is this boolean."""
    return lambda a: a.kind == "bool" and a.value is value


def _is_int(value: int) -> Callable[[_Attr], bool]:
    """Predicate: the attribute is this integer."""
    return lambda a: a.kind == "int" and a.value == value


def _is_string(value: str) -> Callable[[_Attr], bool]:
    """Predicate: the attribute is this string."""
    return lambda a: a.kind == "string" and a.value == value


def _is_enum(case: str) -> Callable[[_Attr], bool]:
    """Predicate: the attribute is this enum case."""
    return lambda a: a.kind == "enum" and a.value[1] == case


def _is_empty(a: _Attr) -> bool:
    """Predicate: an empty array, dictionary, string or tensor."""
    if a.kind in ("array", "dict", "string"):
        return not a.value
    return a.kind == "tensor" and not _dense_values(a)


def _is_splat(value) -> Callable[[_Attr], bool]:
    """Predicate: a non-empty tensor whose elements all equal value."""

    def check(a: _Attr) -> bool:
        values = _dense_values(a)
        return bool(values) and all(v == value for v in values)

    return check


def _all_items(predicate) -> Callable[[_Attr], bool]:
    """Predicate: an array whose every item satisfies predicate."""
    return lambda a: a.kind == "array" and all(predicate(item) for item in a.value)


def _is_default_accuracy(a: _Attr) -> bool:
    """Predicate: result_accuracy with zero tolerances and the DEFAULT mode."""
    if a.kind != "result_accuracy_v1":
        return False
    params = a.value
    return (
        float(params["atol"]) == 0.0
        and float(params["rtol"]) == 0.0
        and int(params["ulps"]) == 0
        and params["mode"].endswith("<DEFAULT>")
    )


def _all_empty_dicts(a: _Attr) -> bool:
    """Predicate: arg/res attributes that say nothing (func.func omits them)."""
    return a.kind == "array" and all(item.kind == "dict" and not item.value for item in a.value)


@dataclass(frozen=True)
class _Bundle:
    """Several VHLO attributes folded into one StableHLO struct attribute.

    `fields` are (VHLO name, StableHLO key, kind) with kind "ints" (missing
    means empty: older op versions lack the newer lists) or "int".
    """

    target: str
    mnemonic: str
    fields: tuple[tuple[str, str, str], ...]

    def render(self, props: dict[str, _Attr]) -> str | None:
        """The struct attribute text; consumes its fields from props."""
        parts = []
        for vhlo_name, key, kind in self.fields:
            attr = props.pop(vhlo_name, None)
            if kind == "ints":
                values = _dense_values(attr) if attr is not None else []
                if values:
                    parts.append(f"{key} = {_list_text(values)}")
            elif attr is None:
                raise _Unconvertible(f"missing attribute '{vhlo_name}'")
            else:
                parts.append(f"{key} = {_int_value(attr)}")
        return f"{self.mnemonic}<{', '.join(parts)}>"


def _ints(*names: str) -> tuple[tuple[str, str, str], ...]:
    """Bundle fields that are integer lists keeping their names."""
    return tuple((n, n, "ints") for n in names)


_DOT_DIMS = _Bundle("dot_dimension_numbers", "#stablehlo.dot", _ints(
    "lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions"))

_GATHER_DIMS = _Bundle("dimension_numbers", "#stablehlo.gather", _ints(
    "offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims", "start_index_map",
) + (("index_vector_dim", "index_vector_dim", "int"),))

_SCATTER_DIMS = _Bundle("scatter_dimension_numbers", "#stablehlo.scatter", _ints(
    "update_window_dims", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims",
    "scatter_dims_to_operand_dims",
) + (("index_vector_dim", "index_vector_dim", "int"),))

_CHANNEL = _Bundle("channel_handle", "#stablehlo.channel_handle", (
    ("channel_id", "handle", "int"), ("channel_type", "type", "int")))


class _ConvBundle:
    """convolution's nine dimension attributes as `#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>`."""

    target = "dimension_numbers"
    groups = (
        ("input_batch_dimension", "b", "input_feature_dimension", "f", "input_spatial_dimensions"),
        ("kernel_input_feature_dimension", "i", "kernel_output_feature_dimension", "o", "kernel_spatial_dimensions"),
        ("output_batch_dimension", "b", "output_feature_dimension", "f", "output_spatial_dimensions"),
    )

    def render(self, props: dict[str, _Attr]) -> str:
        """The dimension numbers in StableHLO's compact form; consumes the fields."""
        layouts = [self._layout(props, *group) for group in self.groups]
        return f"#stablehlo.conv<{layouts[0]}x{layouts[1]}->{layouts[2]}>"

    @staticmethod
    def _layout(props: dict[str, _Attr], first: str, first_label: str, second: str, second_label: str, spatial: str) -> str:
        """One operand's layout, e.g. `[b, 0, 1, f]`: which dimension plays which role."""
        for name in (first, second, spatial):
            if name not in props:
                raise _Unconvertible(f"missing attribute '{name}'")
        spatial_dims = _dense_values(props.pop(spatial))
        roles = [(_int_value(props.pop(first)), first_label), (_int_value(props.pop(second)), second_label)]
        roles += [(dim, str(index)) for index, dim in enumerate(spatial_dims)]
        slots: list[str | None] = [None] * len(roles)
        for dim, label in roles:
            if not 0 <= dim < len(slots) or slots[dim] is not None:
                raise _Unconvertible(f"invalid convolution dimension numbers ({first} and the rest)")
            slots[dim] = label
        return "[" + ", ".join(slots) + "]"


class _DotAlgorithmBundle:
    """dot_general's seven algorithm attributes: all none (no algorithm) or all set."""

    target = "algorithm"
    fields = (
        ("lhs_precision_type", "type"), ("rhs_precision_type", "type"), ("accumulation_type", "type"),
        ("lhs_component_count", "int"), ("rhs_component_count", "int"), ("num_primitive_operations", "int"),
        ("allow_imprecise_accumulation", "bool"),
    )

    def render(self, props: dict[str, _Attr]) -> str | None:
        """`#stablehlo.dot_algorithm<...>`, or None when the dot has no algorithm."""
        values = [props.pop(name, None) for name, _ in self.fields]
        if all(v is None or v.is_none for v in values):
            return None
        parts = []
        for (name, kind), attr in zip(self.fields, values):
            if attr is None or attr.is_none or attr.kind != kind:
                raise _Unconvertible(f"incomplete dot algorithm: '{name}' is {attr.text if attr else 'missing'}")
            parts.append(f"{name} = {attr.value if kind != 'bool' else attr.text}")
        return f"#stablehlo.dot_algorithm<{', '.join(parts)}>"


@dataclass(frozen=True)
class _Rule:
    """How one VHLO op's inherent attributes become its StableHLO op's.

    Everything not named here converts generically, keeping its name.
    `defaults` are (attribute, predicate) pairs: VHLO spells out every
    default, StableHLO omits them. `obsolete` attributes of older op versions
    have no meaning any more (upstream's version upgrade drops them too):
    (attribute, last version that had it). `cleanup` edits the attributes
    when a default depends on several of them.
    """

    latest: int = 1
    i64_arrays: tuple[str, ...] = ()
    bool_arrays: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    symbol_arrays: tuple[str, ...] = ()
    units: tuple[str, ...] = ()
    channel_id: bool = False
    bundles: tuple = ()
    defaults: tuple[tuple[str, Callable[[_Attr], bool]], ...] = ()
    obsolete: tuple[tuple[str, int], ...] = ()
    cleanup: Callable[[dict[str, _Attr]], None] | None = None


def _drop_empty_layouts(props: dict[str, _Attr]) -> None:
    """custom_call: operand and result layouts go only together, when both are empty."""
    operands, results = props.get("operand_layouts"), props.get("result_layouts")
    if operands is not None and results is not None and _is_empty(operands) and _is_empty(results):
        del props["operand_layouts"], props["result_layouts"]


_NO_CHANNEL = (("channel_id", _is_int(0)),)
_ACCURACY = _Rule(latest=2, defaults=(("result_accuracy", _is_default_accuracy),))
_DEFAULT_PRECISION = ("precision_config", _all_items(_is_enum("DEFAULT")))
_CONV_DEFAULTS = (
    ("window_strides", _is_splat(1)),
    ("lhs_dilation", _is_splat(1)),
    ("rhs_dilation", _is_splat(1)),
    ("window_reversal", _is_splat(False)),
    _DEFAULT_PRECISION,
)

_RULES: dict[str, _Rule] = {
    "func": _Rule(defaults=(
        ("sym_visibility", _is_string("")), ("arg_attrs", _all_empty_dicts), ("res_attrs", _all_empty_dicts))),
    "call": _Rule(symbols=("callee",)),
    "broadcast": _Rule(i64_arrays=("broadcast_sizes",)),
    "broadcast_in_dim": _Rule(i64_arrays=("broadcast_dimensions",)),
    "dynamic_broadcast_in_dim": _Rule(
        i64_arrays=("broadcast_dimensions", "known_expanding_dimensions", "known_nonexpanding_dimensions"),
        defaults=(("known_expanding_dimensions", _is_empty), ("known_nonexpanding_dimensions", _is_empty))),
    "dynamic_slice": _Rule(i64_arrays=("slice_sizes",)),
    "reverse": _Rule(i64_arrays=("dimensions",)),
    "transpose": _Rule(i64_arrays=("permutation",)),
    "pad": _Rule(i64_arrays=("edge_padding_low", "edge_padding_high", "interior_padding")),
    "slice": _Rule(i64_arrays=("start_indices", "limit_indices", "strides")),
    "fft": _Rule(i64_arrays=("fft_length",)),
    "map": _Rule(i64_arrays=("dimensions",)),
    "reduce": _Rule(i64_arrays=("dimensions",)),
    "reduce_window": _Rule(
        i64_arrays=("window_dimensions", "window_strides", "base_dilations", "window_dilations"),
        defaults=(("window_strides", _is_splat(1)), ("base_dilations", _is_splat(1)),
                  ("window_dilations", _is_splat(1)), ("padding", _is_splat(0)))),
    "select_and_scatter": _Rule(
        i64_arrays=("window_dimensions", "window_strides"),
        defaults=(("window_strides", _is_splat(1)), ("padding", _is_splat(0)))),
    "convolution": _Rule(
        i64_arrays=("window_strides", "lhs_dilation", "rhs_dilation"), bool_arrays=("window_reversal",),
        bundles=(_ConvBundle(),), defaults=_CONV_DEFAULTS + (("padding", _is_splat(0)),)),
    "dynamic_conv": _Rule(
        latest=2, i64_arrays=("window_strides", "lhs_dilation", "rhs_dilation"), bool_arrays=("window_reversal",),
        bundles=(_ConvBundle(),), defaults=_CONV_DEFAULTS, obsolete=(("padding", 1),)),
    "dot": _Rule(defaults=(_DEFAULT_PRECISION,)),
    "dot_general": _Rule(latest=2, bundles=(_DOT_DIMS, _DotAlgorithmBundle()), defaults=(_DEFAULT_PRECISION,)),
    "gather": _Rule(latest=2, i64_arrays=("slice_sizes",), bundles=(_GATHER_DIMS,),
                    defaults=(("indices_are_sorted", _is_bool(False)),)),
    "dynamic_gather": _Rule(latest=2, bundles=(_GATHER_DIMS,), defaults=(("indices_are_sorted", _is_bool(False)),)),
    "scatter": _Rule(latest=2, bundles=(_SCATTER_DIMS,),
                     defaults=(("indices_are_sorted", _is_bool(False)), ("unique_indices", _is_bool(False)))),
    "sort": _Rule(defaults=(("dimension", _is_int(-1)), ("is_stable", _is_bool(False)))),
    "compare": _Rule(defaults=(("compare_type", _is_enum("NOTYPE")),)),
    "composite": _Rule(latest=2, symbols=("decomposition",),
                       defaults=(("version", _is_int(0)), ("composite_attributes", _is_empty))),
    "custom_call": _Rule(latest=2, symbol_arrays=("called_computations",), cleanup=_drop_empty_layouts, defaults=(
        ("has_side_effect", _is_bool(False)),
        ("backend_config", lambda a: a.kind in ("string", "dict") and not a.value),
        ("api_version", _is_enum("API_VERSION_ORIGINAL")),
        ("called_computations", _is_empty),
        ("output_operand_aliases", _is_empty),
        ("result_tilings", _is_empty),
    )),
    "all_gather": _Rule(latest=2, channel_id=True, units=("use_global_device_ids",), defaults=_NO_CHANNEL),
    "all_reduce": _Rule(latest=2, channel_id=True, units=("use_global_device_ids",), defaults=_NO_CHANNEL),
    "reduce_scatter": _Rule(channel_id=True, units=("use_global_device_ids",), defaults=_NO_CHANNEL),
    "all_to_all": _Rule(latest=2, channel_id=True, defaults=_NO_CHANNEL),
    "collective_permute": _Rule(channel_id=True, defaults=_NO_CHANNEL),
    "collective_broadcast": _Rule(latest=2, channel_id=True, units=("has_dynamic_root",), defaults=_NO_CHANNEL),
    "collective_reduce": _Rule(channel_id=True, units=("use_global_device_ids", "has_dynamic_root"),
                               defaults=_NO_CHANNEL),
    "send": _Rule(latest=2, bundles=(_CHANNEL,), defaults=(
        ("is_host_transfer", _is_bool(False)), ("source_target_pairs", _is_empty))),
    "recv": _Rule(latest=2, bundles=(_CHANNEL,), defaults=(
        ("is_host_transfer", _is_bool(False)), ("source_target_pairs", _is_empty))),
    "cholesky": _Rule(defaults=(("lower", _is_bool(False)),)),
    "infeed": _Rule(defaults=(("infeed_config", _is_string("")), ("layout", _is_empty))),
    "outfeed": _Rule(defaults=(("outfeed_config", _is_string("")),)),
    **{name: _ACCURACY for name in (
        "cbrt", "cosine", "exponential", "exponential_minus_one", "log", "log_plus_one", "logistic",
        "rsqrt", "sine", "sqrt", "tan", "tanh",
    )},
}
_DEFAULT_RULE = _Rule()


def _convert_properties(base: str, version: int, props: dict[str, _Attr]) -> list[tuple[str, str | None]]:
    """Applies the op's rule; returns (name, text) pairs, text None for unit attributes."""
    rule = _RULES.get(base, _DEFAULT_RULE)
    if version > rule.latest:
        raise _Unconvertible(f"version {version} is newer than this converter knows (v{rule.latest})")
    for name, last_version in rule.obsolete:
        if version <= last_version:
            props.pop(name, None)
    for name, is_default in rule.defaults:
        if props.get(name) is not None and is_default(props[name]):
            del props[name]
    if rule.cleanup is not None:
        rule.cleanup(props)
    out: list[tuple[str, str | None]] = []
    for bundle in rule.bundles:
        text = bundle.render(props)
        if text is not None:
            out.append((bundle.target, text))
    for name, attr in props.items():
        converted = _convert_property(rule, name, attr)
        if converted is not None:
            out.append(converted)
    return out


def _convert_property(rule: _Rule, name: str, attr: _Attr) -> tuple[str, str | None] | None:
    """One inherent attribute under the op's rule; None when it is dropped."""
    if attr is None:
        return name, None
    if name in rule.i64_arrays:
        return name, _dense_array_text("i64", [str(v) for v in _dense_values(attr)])
    if name in rule.bool_arrays:
        return name, _dense_array_text("i1", [_bool_text(v) for v in _dense_values(attr)])
    if name in rule.symbols:
        return name, _symbol_text(_expect_kind(attr, "string").text)
    if name in rule.symbol_arrays:
        items = _expect_kind(attr, "array").value
        return name, "[" + ", ".join(_symbol_text(_expect_kind(i, "string").text) for i in items) + "]"
    if name in rule.units:
        return (name, None) if _expect_kind(attr, "bool").value else None
    if name == "channel_id" and rule.channel_id:
        return "channel_handle", f"#stablehlo.channel_handle<handle = {_int_value(attr)}, type = 0>"
    if attr.is_none:
        return None
    return name, attr.text


def _dense_array_text(element: str, values: list[str]) -> str:
    """`array<i64: 1, 2>` (or `array<i64>` when empty), the DenseArrayAttr StableHLO wants."""
    return f"array<{element}" + (": " + ", ".join(values) if values else "") + ">"


def _expect_kind(attr: _Attr, kind: str) -> _Attr:
    """Checks a VHLO attribute's kind before a rule relies on it."""
    if attr.kind != kind:
        raise _Unconvertible(f"expected a VHLO {kind} attribute, got {attr.text}")
    return attr


# ----------------------------------------------------------------------------
# The converter
# ----------------------------------------------------------------------------

_VHLO_OP = re.compile(r'"vhlo\.(.+)_v(\d+)"')


class _Converter:
    """Rewrites the generic text of a VHLO module into StableHLO generic text.

    It reads the text once, front to back. Whitespace between ops is copied,
    so line N of the output is line N of the input; each op is rewritten on
    its own line(s). `emitted` holds, per op in print order, the property
    names written for it; `current_op` is the print-order index of the op
    being converted (None outside any op), for error messages.
    """

    def __init__(self, text: str) -> None:
        self.tokens = _tokenize(text)
        self.pos = 0
        self.emitted: list[list[str]] = []
        self._open_ops: list[int] = []

    @property
    def current_op(self) -> int | None:
        """Print-order index of the innermost op being converted."""
        return self._open_ops[-1] if self._open_ops else None

    # -- token access ---------------------------------------------------------

    def peek(self, ahead: int = 0) -> _Token:
        """The token `ahead` places on (the end marker past the end)."""
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def take(self) -> _Token:
        """Consumes and returns the next token."""
        tok = self.peek()
        if not tok.text:
            raise _Unconvertible("the VHLO text ends too early")
        self.pos += 1
        return tok

    def expect(self, text: str) -> _Token:
        """Consumes the next token, which must be `text`."""
        tok = self.take()
        if tok.text != text:
            raise _Unconvertible(f"unexpected '{tok.text}' where '{text}' belongs in the VHLO text")
        return tok

    def at(self, text: str, ahead: int = 0) -> bool:
        """True when the token `ahead` places on is `text`."""
        return self.peek(ahead).text == text

    # -- top level ------------------------------------------------------------

    def run(self) -> str:
        """Converts the whole text: alias definitions, the module op, resources."""
        out = []
        while self.peek().text:
            tok = self.peek()
            out.append(tok.lead)
            if tok.text == "{-#":
                out.append(self._rest_verbatim())
            elif tok.text.startswith(("#", "!")) and self.at("=", 1):
                out.append(self._alias_definition())
            else:
                out.append(self._op(parent=None))
        out.append(self.peek().lead)
        return "".join(out)

    def _rest_verbatim(self) -> str:
        """File metadata (`{-# dialect_resources ... #-}`) goes through as is."""
        tokens = self.tokens[self.pos : -1]
        self.pos = len(self.tokens) - 1
        return "".join(t.lead + t.text for t in tokens)[len(tokens[0].lead) :]

    def _alias_definition(self) -> str:
        """`#name = value` or `!name = type`: the value runs to the end of its line."""
        name = self.take().text
        self.expect("=")
        return f"{name} = {self._span(stop=(), stop_at_newline=True)}"

    # -- ops ------------------------------------------------------------------

    def _op(self, parent: str | None) -> str:
        """One op in generic form, converted when it is a VHLO op."""
        index = len(self.emitted)
        self.emitted.append([])
        self._open_ops.append(index)
        results = ""
        if self.peek().text.startswith("%"):
            results = self._span(stop=("=",)) + " = "
            self.expect("=")
        name_literal = self.take().text
        operands = self._balanced_after("(")
        successors = self._balanced_after("[") if self.at("[") else ""
        props = self._properties() if self.at("<") and self.at("{", 1) else {}
        versioned = _VHLO_OP.fullmatch(name_literal)
        if versioned:
            base, version = versioned.group(1), int(versioned.group(2))
            name = self._target_name(base, parent)
            pairs = _convert_properties(base, version, props)
            self.emitted[index] = [n for n, _ in pairs]
        elif name_literal.startswith('"vhlo.'):
            raise _Unconvertible("not a versioned VHLO op name")
        else:
            name = _unquote(name_literal)
            pairs = [(n, None if a is None else a.text) for n, a in props.items()]
        regions = self._regions(name) if self.at("(") and self.at("{", 1) else ""
        attrs = self._attr_dict() if self.at("{") else ""
        self.expect(":")
        signature = self._type()
        loc = self._location()
        self._open_ops.pop()
        props_text = self._properties_text(pairs)
        return f'{results}"{name}"{operands}{successors}{props_text}{regions}{attrs} : {signature}{loc}'

    @staticmethod
    def _target_name(base: str, parent: str | None) -> str:
        """The StableHLO or func op a VHLO op becomes (return depends on its parent)."""
        if base == "func":
            return "func.func"
        if base == "call":
            return "func.call"
        if base == "return" and parent == "func.func":
            return "func.return"
        name = f"stablehlo.{base}"
        if not ir.context().is_registered_operation(name):
            raise _Unconvertible(f"this compiler has no '{name}'")
        return name

    @staticmethod
    def _properties_text(pairs: list[tuple[str, str | None]]) -> str:
        """` <{a = x, b}>` from converted (name, text) pairs; empty when none."""
        if not pairs:
            return ""
        body = ", ".join(name if text is None else f"{name} = {text}" for name, text in pairs)
        return f" <{{{body}}}>"

    def _properties(self) -> dict[str, _Attr]:
        """`<{name = attr, ...}>`: the op's inherent attributes, converted generically."""
        self.expect("<")
        entries = self._dict_entries()
        self.expect(">")
        return dict(entries)

    def _attr_dict(self) -> str:
        """The discardable attributes `{name = attr, ...}`, converted generically."""
        entries = self._dict_entries()
        body = ", ".join(key if attr is None else f"{key} = {attr.text}" for key, attr in entries)
        return f" {{{body}}}"

    def _dict_entries(self) -> list[tuple[str, _Attr | None]]:
        """`{key = attr, key, ...}` with keys as written; None values for unit attributes."""
        self.expect("{")
        entries = []
        while not self.at("}"):
            key = self.take().text
            value = None
            if self.at("="):
                self.take()
                value = self._attr()
            entries.append((key, value))
            if not self.at("}"):
                self.expect(",")
        self.expect("}")
        return entries

    def _regions(self, parent: str) -> str:
        """`({...}, {...})`: each region's blocks and ops, line structure kept."""
        self.expect("(")
        parts = []
        while True:
            parts.append(self._region(parent))
            if not self.at(","):
                break
            self.take()
        self.expect(")")
        return " (" + ", ".join(parts) + ")"

    def _region(self, parent: str) -> str:
        """`{ ^bb0(...): ops ... }` with the whitespace between lines kept."""
        self.expect("{")
        out = ["{"]
        while not self.at("}"):
            tok = self.peek()
            out.append(tok.lead)
            out.append(self._block_header() if tok.text.startswith("^") else self._op(parent))
        out.append(self.expect("}").lead + "}")
        return "".join(out)

    def _block_header(self) -> str:
        """`^bb0(%arg: type loc(...), ...):` with the argument types converted."""
        label = self.take().text
        args = []
        if self.at("("):
            self.take()
            while not self.at(")"):
                value = self.take().text
                self.expect(":")
                args.append(f"{value}: {self._type()}{self._location()}")
                if not self.at(")"):
                    self.expect(",")
            self.take()
        self.expect(":")
        return label + (f"({', '.join(args)})" if args else "") + ":"

    def _location(self) -> str:
        """An optional trailing `loc(...)`, copied as is."""
        if not self.at("loc"):
            return ""
        self.take()
        return " loc" + self._balanced_after("(")

    def _balanced_after(self, opener: str) -> str:
        """A bracketed group starting at `opener`, VHLO inside converted, layout kept."""
        self.expect(opener)
        body = self._span(stop=(_OPENERS[opener],))
        self.expect(_OPENERS[opener])
        return opener + body + _OPENERS[opener]

    def _span(self, stop: tuple[str, ...], stop_at_newline: bool = False) -> str:
        """Copies tokens up to a depth-0 token in `stop`, converting VHLO types/attributes.

        Used for text that needs no understanding (operands, locations,
        attributes of other dialects): it only keeps bracket depth.
        """
        out = []
        depth = 0
        first = True
        while True:
            tok = self.peek()
            if not tok.text:
                break
            if depth == 0 and (tok.text in stop or tok.text in _CLOSERS):
                break
            if depth == 0 and stop_at_newline and not first and "\n" in tok.lead:
                break
            lead = "" if first else tok.lead
            first = False
            if tok.text.startswith("!vhlo."):
                out.append(lead + self._type())
                continue
            if tok.text.startswith("#vhlo"):
                out.append(lead + self._attr().text)
                continue
            self.take()
            if tok.text in _OPENERS:
                depth += 1
            elif tok.text in _CLOSERS:
                depth -= 1
            out.append(lead + tok.text)
        return "".join(out)

    # -- types ------------------------------------------------------------------

    def _type(self) -> str:
        """One type: VHLO ones converted, function types recursed into, others copied."""
        tok = self.peek()
        if tok.text.startswith("!vhlo."):
            self.take()
            return self._vhlo_type(tok.text[len("!vhlo."):])
        if tok.text == "(":
            return self._function_type()
        self.take()
        if self.at("<") and not self.peek().lead:
            return tok.text + self._balanced_after("<")
        return tok.text

    def _type_list(self, closer: str) -> list[str]:
        """Comma-separated types up to (not including) `closer`."""
        types = []
        while not self.at(closer):
            types.append(self._type())
            if not self.at(closer):
                self.expect(",")
        return types

    def _function_type(self) -> str:
        """`(inputs) -> result` or `(inputs) -> (results)`."""
        self.expect("(")
        inputs = self._type_list(")")
        self.expect(")")
        self.expect("->")
        if self.at("("):
            self.take()
            results = self._type_list(")")
            self.expect(")")
            return _function_text(inputs, results)
        return _function_text(inputs, [self._type()])

    # Parametric VHLO types: mnemonic -> (method, argument).
    _TYPE_PARSERS = {
        "tensor_v1": ("_shaped_type", "tensor"),
        "buffer_v1": ("_shaped_type", "memref"),
        "unranked_tensor_v1": ("_wrapped_type", "tensor<*x{}>"),
        "complex_v1": ("_wrapped_type", "complex<{}>"),
        "tuple_v1": ("_type_group", "tuple"),
        "future_v1": ("_type_group", "!stablehlo.future"),
        "func_v1": ("_vhlo_function_type", None),
        "quant_v1": ("_quant_type", None),
        "quant_per_axis_v1": ("_quant_per_axis_type", None),
    }

    def _vhlo_type(self, mnemonic: str) -> str:
        """A `!vhlo.*` type (its mnemonic already consumed) as a builtin/StableHLO type."""
        if mnemonic in _SCALAR_TYPES:
            return _SCALAR_TYPES[mnemonic]
        if mnemonic not in self._TYPE_PARSERS:
            raise _Unconvertible(f"unsupported VHLO type !vhlo.{mnemonic}")
        method, argument = self._TYPE_PARSERS[mnemonic]
        return getattr(self, method)(argument)

    def _wrapped_type(self, template: str) -> str:
        """`<type>` after a parametric VHLO type, put into `template`."""
        self.expect("<")
        inner = self._type()
        self.expect(">")
        return template.format(inner)

    def _type_group(self, prefix: str) -> str:
        """`<t1, t2>` after tuple/future, as `prefix<t1, t2>`."""
        self.expect("<")
        types = self._type_list(">")
        self.expect(">")
        return f"{prefix}<{', '.join(types)}>"

    def _shaped_type(self, prefix: str) -> str:
        """`<2x?x!vhlo.f32_v1, #encoding>` as `tensor<2x?xf32, #encoding>` (or memref)."""
        self.expect("<")
        shape = ""
        while re.fullmatch(r"[\dx?]+", self.peek().text):
            shape += self.take().text
        element = self._type()
        encoding = ""
        if self.at(","):
            self.take()
            encoding = ", " + self._attr().text
        self.expect(">")
        return f"{prefix}<{shape}{element}{encoding}>"

    def _vhlo_function_type(self, _=None) -> str:
        """`<(inputs) -> outputs>` as a builtin function type."""
        self.expect("<")
        self.expect("(")
        inputs = self._vhlo_type_array(")")
        self.expect(")")
        self.expect("->")
        outputs = self._vhlo_type_array(">")
        self.expect(">")
        return _function_text(inputs, outputs)

    def _vhlo_type_array(self, closer: str) -> list[str]:
        """VHLO's type lists: `()` when empty, else types without parentheses."""
        if self.at("(") and self.at(")", 1):
            self.pos += 2
            return []
        return self._type_list(closer)

    def _quant_storage(self) -> tuple[str, str]:
        """`storage:expressed`, the two types a quantized type starts with."""
        storage = self._type()
        self.expect(":")
        expressed = self._type()
        return storage, expressed

    def _quant_tail(self, storage: str) -> str:
        """`, min:max, flags>` ending a quantized type; returns the storage as `i8<-128:127>`."""
        self.expect(",")
        low = self.take().text
        self.expect(":")
        high = self.take().text
        self.expect(",")
        flags = int(self.take().text)
        self.expect(">")
        width = re.fullmatch(r"u?i(\d+)", storage)
        if width is None:
            raise _Unconvertible(f"unsupported quantized storage type {storage}")
        sign = "i" if flags & 1 else "u"
        return f"{sign}{width.group(1)}<{low}:{high}>"

    def _quant_type(self, _=None) -> str:
        """`<S:E, scale:zero_point, min:max, flags>` as `!quant.uniform<...>`."""
        self.expect("<")
        storage, expressed = self._quant_storage()
        self.expect(",")
        scale = self.take().text
        self.expect(":")
        zero_point = self.take().text
        spelled = self._quant_tail(storage)
        return f"!quant.uniform<{spelled}:{expressed}, {scale}:{zero_point}>"

    def _quant_per_axis_type(self, _=None) -> str:
        """`<S:E, dim, [scales], [zero_points], min:max, flags>` as a per-axis `!quant.uniform`."""
        self.expect("<")
        storage, expressed = self._quant_storage()
        self.expect(",")
        dim = self.take().text
        self.expect(",")
        scales = self._word_list()
        self.expect(",")
        zero_points = self._word_list()
        spelled = self._quant_tail(storage)
        pairs = ", ".join(f"{s}:{z}" for s, z in zip(scales, zero_points))
        return f"!quant.uniform<{spelled}:{expressed}:{dim}, {{{pairs}}}>"

    def _word_list(self) -> list[str]:
        """`[a, b, c]` of plain numbers."""
        self.expect("[")
        words = []
        while not self.at("]"):
            words.append(self.take().text)
            if not self.at("]"):
                self.expect(",")
        self.expect("]")
        return words

    # -- attributes -------------------------------------------------------------

    def _attr(self) -> _Attr:
        """One attribute: VHLO ones converted, any other copied as is."""
        tok = self.peek()
        if tok.text == "#vhlo":
            self.take()
            return self._vhlo_enum()
        if tok.text.startswith("#vhlo."):
            self.take()
            return self._vhlo_attr(tok.text[len("#vhlo."):])
        return _Attr("raw", self._span(stop=(",", ">")))

    def _vhlo_enum(self) -> _Attr:
        """`#vhlo<kind_v1 CASE>` as the StableHLO enum attribute."""
        self.expect("<")
        kind = self.take().text
        case = self.take().text
        self.expect(">")
        render = _ENUMS.get(kind)
        if render is None:
            raise _Unconvertible(f"unsupported VHLO enum #vhlo<{kind} {case}>")
        return _Attr("enum", render(case), (kind, case))

    # VHLO attribute mnemonic -> method; struct-like ones are in _STRUCTS.
    _ATTR_PARSERS = {
        "array_v1": "_array_attr",
        "dict_v1": "_dict_attr",
        "string_v1": "_string_attr",
        "bool_v1": "_bool_attr",
        "integer_v1": "_integer_attr",
        "float_v1": "_float_attr",
        "tensor_v1": "_tensor_attr",
        "type_v1": "_type_attr",
        "type_extensions_v1": "_bounds_attr",
        "sub_axis_info_v1": "_sub_axis_info_attr",
    }

    def _vhlo_attr(self, mnemonic: str) -> _Attr:
        """A `#vhlo.*` attribute (its mnemonic already consumed), converted."""
        if mnemonic in self._ATTR_PARSERS:
            return getattr(self, self._ATTR_PARSERS[mnemonic])()
        if mnemonic in _STRUCTS:
            return self._struct_attr(mnemonic)
        raise _Unconvertible(f"unsupported VHLO attribute #vhlo.{mnemonic}")

    def _array_attr(self) -> _Attr:
        """`<[a, b]>` as `[a, b]`."""
        self.expect("<")
        self.expect("[")
        items = []
        while not self.at("]"):
            items.append(self._attr())
            if not self.at("]"):
                self.expect(",")
        self.expect("]")
        self.expect(">")
        return _Attr("array", "[" + ", ".join(i.text for i in items) + "]", items)

    def _dict_attr(self) -> _Attr:
        """`<{#vhlo.string_v1<"k"> = v}>` as `{k = v}`."""
        self.expect("<")
        self.expect("{")
        pairs = []
        while not self.at("}"):
            key = self._attr()
            if key.kind != "string":
                raise _Unconvertible(f"dictionary key {key.text} is not a string")
            self.expect("=")
            pairs.append((_name_text(key.text), self._attr()))
            if not self.at("}"):
                self.expect(",")
        self.expect("}")
        self.expect(">")
        return _Attr("dict", "{" + ", ".join(f"{k} = {v.text}" for k, v in pairs) + "}", pairs)

    def _string_attr(self) -> _Attr:
        """`<"text">` as `"text"` (the escapes already are MLIR's)."""
        self.expect("<")
        literal = self.take().text
        self.expect(">")
        return _Attr("string", literal, _unquote(literal))

    def _bool_attr(self) -> _Attr:
        """`<true>` as `true`."""
        self.expect("<")
        word = self.take().text
        self.expect(">")
        return _Attr("bool", word, word == "true")

    def _integer_attr(self) -> _Attr:
        """`<5 : i64>` (a builtin integer inside) as `5 : i64`."""
        self.expect("<")
        text = self._span(stop=(">",))
        self.expect(">")
        first = text.split()[0]
        value = {"true": 1, "false": 0}.get(first)
        return _Attr("int", text, int(first) if value is None else value)

    def _float_attr(self) -> _Attr:
        """`<1.0 : !vhlo.f32_v1>` as `1.0 : f32`."""
        self.expect("<")
        value = self.take().text
        self.expect(":")
        type_text = self._type()
        self.expect(">")
        return _Attr("float", f"{value} : {type_text}", value)

    def _tensor_attr(self) -> _Attr:
        """`<dense<...> : tensor<...>>` as the dense attribute inside."""
        self.expect("<")
        text = self._span(stop=(">",))
        self.expect(">")
        return _Attr("tensor", text, text)

    def _type_attr(self) -> _Attr:
        """`<type>` as the type; value None for VHLO's none type (an absent value)."""
        self.expect("<")
        is_none = self.at("!vhlo.none_v1")
        type_text = self._type()
        self.expect(">")
        return _Attr("type", type_text, None if is_none else type_text)

    def _bounds_attr(self) -> _Attr:
        """`<bounds = [4, ?]>` (a tensor encoding) as `#stablehlo.bounds<4, ?>`."""
        params = self._struct_params()
        bounds = params.get("bounds", "[]")
        return _Attr("bounds", f"#stablehlo.bounds<{bounds[1:-1]}>")

    def _sub_axis_info_attr(self) -> _Attr:
        """`<pre_size = 1, size = 2>` as `(1)2`, the way axis_ref spells it."""
        params = self._struct_params()
        return _Attr("sub_axis_info", f"({params['pre_size']}){params['size']}")

    def _struct_attr(self, mnemonic: str) -> _Attr:
        """A struct-like attribute, its parameters renamed per `_STRUCTS`."""
        prefix, renames = _STRUCTS[mnemonic]
        params = self._struct_params()
        parts = []
        for key, value in params.items():
            if key not in renames:
                raise _Unconvertible(f"unknown parameter '{key}' of #vhlo.{mnemonic}")
            if mnemonic == "replica_group_mesh_axes_v1" and key == "mesh" and value.startswith('"'):
                value = _symbol_text(value)
            parts.append(f"{renames[key]} = {value}")
        return _Attr(mnemonic, f"{prefix}<{', '.join(parts)}>", params)

    def _struct_params(self) -> dict[str, str]:
        """`<key = value, ...>` with each value converted to text."""
        self.expect("<")
        params = {}
        while not self.at(">"):
            key = self.take().text
            self.expect("=")
            params[key] = self._attr().text
            if not self.at(">"):
                self.expect(",")
        self.expect(">")
        return params


def _function_text(inputs: list[str], results: list[str]) -> str:
    """A builtin function type; a single non-function result goes without parentheses."""
    if len(results) == 1 and not results[0].startswith("("):
        result = results[0]
    else:
        result = "(" + ", ".join(results) + ")"
    return "(" + ", ".join(inputs) + ") -> " + result

