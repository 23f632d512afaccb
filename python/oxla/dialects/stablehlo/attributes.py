"""StableHLO attributes as Python values: converters both ways, enums and dimension-number dataclasses.

Builders take plain Python values (ints, lists, strings, enum case names,
numpy arrays, the dataclasses below) and also accept a ready `ir.Attribute`
unchanged. Op classes read attributes back into the same Python values.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

import numpy as np

from oxla import ir
from oxla.dialects.elements import to_numpy
from oxla.dialects.stablehlo import types as T


class AttrKind:
    """How one attribute travels between Python and MLIR."""

    def to_attr(self, value) -> ir.Attribute:
        """The MLIR attribute for a Python value."""
        raise NotImplementedError

    def to_python(self, attr: ir.Attribute):
        """The Python value of an MLIR attribute."""
        raise NotImplementedError

    def convert(self, value) -> tuple[object, ir.Attribute]:
        """(Python value, attribute) from either form."""
        if isinstance(value, ir.Attribute):
            return self.to_python(value), value
        return value, self.to_attr(value)


def _int_list(value, what: str) -> list[int]:
    """A list of Python ints from a sequence (ValueError otherwise)."""
    try:
        out = [int(v) for v in value]
    except TypeError:
        raise TypeError(f"{what}: expected a sequence of ints, got {value!r}") from None
    if any(isinstance(v, (bool, float)) for v in value):
        raise TypeError(f"{what}: expected a sequence of ints, got {value!r}")
    return out


class I64Array(AttrKind):
    """`array<i64: ...>` (DenseI64ArrayAttr) <-> list[int]."""

    def to_attr(self, value):
        return ir.DenseI64ArrayAttr.get(_int_list(value, "i64 array"))

    def to_python(self, attr):
        return list(ir.DenseI64ArrayAttr(attr))

    def convert(self, value):
        if isinstance(value, ir.Attribute):
            return self.to_python(value), value
        ints = _int_list(value, "i64 array")
        return ints, ir.DenseI64ArrayAttr.get(ints)


class BoolArray(AttrKind):
    """`array<i1: ...>` (DenseBoolArrayAttr) <-> list[bool]."""

    def to_attr(self, value):
        return ir.DenseBoolArrayAttr.get([bool(v) for v in value])

    def to_python(self, attr):
        return [bool(v) for v in ir.DenseBoolArrayAttr(attr)]


class Integer(AttrKind):
    """An IntegerAttr of a given width <-> int."""

    def __init__(self, width: int = 64):
        self.width = width

    def to_attr(self, value):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"expected an int, got {value!r}")
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(self.width), int(value))

    def to_python(self, attr):
        return ir.IntegerAttr(attr).value


class Float(AttrKind):
    """A FloatAttr (f32) <-> float."""

    def to_attr(self, value):
        return T.f32_attr(value)

    def to_python(self, attr):
        return ir.FloatAttr(attr).value


class Bool(AttrKind):
    """A BoolAttr <-> bool."""

    def to_attr(self, value):
        return ir.BoolAttr.get(bool(value))

    def to_python(self, attr):
        return ir.BoolAttr(attr).value


class String(AttrKind):
    """A StringAttr <-> str."""

    def to_attr(self, value):
        if not isinstance(value, str):
            raise TypeError(f"expected a string, got {value!r}")
        return ir.StringAttr.get(value)

    def to_python(self, attr):
        return ir.StringAttr(attr).value


class Symbol(AttrKind):
    """A FlatSymbolRefAttr <-> the symbol's name."""

    def to_attr(self, value):
        return ir.FlatSymbolRefAttr.get(str(value))

    def to_python(self, attr):
        return ir.FlatSymbolRefAttr(attr).value


class SymbolArray(AttrKind):
    """An ArrayAttr of FlatSymbolRefAttrs <-> list of names."""

    def to_attr(self, value):
        return ir.ArrayAttr.get([ir.FlatSymbolRefAttr.get(str(v)) for v in value])

    def to_python(self, attr):
        return [ir.FlatSymbolRefAttr(a).value for a in ir.ArrayAttr(attr)]


class Enum(AttrKind):
    """A `#stablehlo<kind CASE>` enum <-> the case name (upper-case string)."""

    def __init__(self, kind: str, cases: tuple[str, ...], prefix: str = "#stablehlo"):
        self.kind, self.cases, self.prefix = kind, cases, prefix

    def to_attr(self, value):
        case = str(getattr(value, "name", value)).upper()
        if case not in self.cases:
            raise ValueError(f"{self.kind} must be one of {', '.join(self.cases)}; got {value!r}")
        return ir.Attribute.parse(f"{self.prefix}<{self.kind} {case}>")

    def to_python(self, attr):
        return str(attr).rsplit(" ", 1)[-1].rstrip(">")


class EnumArray(AttrKind):
    """An ArrayAttr of enums (precision_config) <-> list of case names."""

    def __init__(self, enum: Enum):
        self.enum = enum

    def to_attr(self, value):
        return ir.ArrayAttr.get([self.enum.to_attr(v) for v in value])

    def to_python(self, attr):
        return [self.enum.to_python(a) for a in ir.ArrayAttr(attr)]


class IntegerEnum(AttrKind):
    """An i32 attribute whose values name cases (custom_call's api_version)."""

    def __init__(self, cases: dict[str, int]):
        self.cases = cases

    def to_attr(self, value):
        number = self.cases.get(str(value).upper(), value)
        if number not in self.cases.values():
            raise ValueError(f"must be one of {', '.join(self.cases)}; got {value!r}")
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(number))

    def to_python(self, attr):
        number = ir.IntegerAttr(attr).value
        return next((k for k, v in self.cases.items() if v == number), number)


class Elements(AttrKind):
    """A dense elements attribute <-> numpy array (element type from the array, or given)."""

    def __init__(self, dtype=None):
        self.dtype = dtype

    def to_attr(self, value, element=None):
        return dense_elements(value, element if element is not None else self.dtype)

    def to_python(self, attr):
        return to_numpy(attr)


class I64Matrix(AttrKind):
    """A dense i64 elements attribute of a fixed or free 2-D shape (padding, replica groups)."""

    def __init__(self, columns: int | None = None):
        self.columns = columns

    def to_attr(self, value):
        array = np.asarray(value, dtype=np.int64)
        if array.size == 0 and self.columns is not None:
            array = array.reshape(0, self.columns)
        if array.ndim != 2 or (self.columns is not None and array.shape[1] != self.columns):
            want = f"[N, {self.columns}]" if self.columns else "2-D"
            raise ValueError(f"expected a {want} array of ints, got shape {list(array.shape)}")
        return dense_elements(array, T.i64())

    def to_python(self, attr):
        return to_numpy(attr).astype(np.int64).tolist()


class Dictionary(AttrKind):
    """A DictionaryAttr <-> dict of Python values (ints, floats, strings, bools, lists, arrays)."""

    def to_attr(self, value):
        return ir.DictAttr.get({k: python_attribute(v) for k, v in dict(value).items()})

    def to_python(self, attr):
        d = ir.DictAttr(attr)
        return {d[i].name: python_value(d[i].attr) for i in range(len(d))}


class AnyAttr(AttrKind):
    """Any attribute: a Python value converted by its type, or a string of MLIR text kept as a string."""

    def to_attr(self, value):
        return python_attribute(value)

    def to_python(self, attr):
        return python_value(attr)


class TypeList(AttrKind):
    """An ArrayAttr of TypeAttrs <-> list of types."""

    def to_attr(self, value):
        return ir.ArrayAttr.get([ir.TypeAttr.get(T.element_type(v) if isinstance(v, str) else v) for v in value])

    def to_python(self, attr):
        return [ir.TypeAttr(a).value for a in ir.ArrayAttr(attr)]


def python_attribute(value) -> ir.Attribute:
    """An attribute for a plain Python value, chosen by the value's type."""
    if isinstance(value, ir.Attribute):
        return value
    if isinstance(value, bool):
        return ir.BoolAttr.get(value)
    if isinstance(value, (int, np.integer)):
        return ir.IntegerAttr.get(T.i64(), int(value))
    if isinstance(value, (float, np.floating)):
        return T.f32_attr(value)
    if isinstance(value, str):
        return ir.StringAttr.get(value)
    if isinstance(value, np.ndarray):
        return dense_elements(value)
    if isinstance(value, dict):
        return Dictionary().to_attr(value)
    if isinstance(value, (list, tuple)):
        return ir.ArrayAttr.get([python_attribute(v) for v in value])
    if isinstance(value, ir.Type):
        return ir.TypeAttr.get(value)
    raise TypeError(f"no attribute form for {value!r}")


def python_value(attr: ir.Attribute):
    """The Python value of a builtin attribute (the attribute itself when there is no simpler form)."""
    for cls, read in _READERS:
        if isinstance(attr, cls):
            return read(attr)
    return attr


_READERS = ((ir.BoolAttr, lambda a: a.value), (ir.IntegerAttr, lambda a: a.value), (ir.FloatAttr, lambda a: a.value),
            (ir.StringAttr, lambda a: a.value), (ir.DenseI64ArrayAttr, list), (ir.DenseElementsAttr, to_numpy),
            (ir.ArrayAttr, lambda a: [python_value(x) for x in a]), (ir.DictAttr, lambda a: Dictionary().to_python(a)))


def dense_elements(value, element=None) -> ir.Attribute:
    """A dense elements attribute holding `value` (array or scalar) with the given or the array's element type.

    Complex attributes cannot be held by the Python bindings; build complex
    constants from `dense_text` instead (the constant builder does).
    """
    return ir.Attribute.parse(dense_text(value, element))


def dense_text(value, element=None) -> str:
    """The MLIR text of a dense elements attribute (`dense<...> : tensor<...>`); bit-exact for every float."""
    array = np.asarray(value)
    element = T.element_type(array.dtype if element is None else element)
    target = _storage_dtype(element)
    array = np.array(array, dtype=target, order="C", copy=array.dtype != target or not array.flags.c_contiguous)
    shape_type = T.ranked(array.shape, element)
    if array.size == 0:
        return f"dense<> : {shape_type}"
    if array.dtype == np.bool_:
        literal = _nested(array) if array.any() != array.all() else ("true" if array.all() else "false")
        return f"dense<{literal}> : {shape_type}"
    data = array.reshape(-1)[:1] if _bits_equal(array) else array
    return f'dense<"0x{data.tobytes().hex().upper()}"> : {shape_type}'


def _bits_equal(array: np.ndarray) -> bool:
    """Whether every element has the same bit pattern (so a splat keeps -0.0 and NaN payloads)."""
    raw = array.reshape(-1).view(np.uint8).reshape(array.size, -1)
    return bool((raw == raw[0]).all())


def _nested(array: np.ndarray) -> str:
    """A bool array as a nested MLIR literal."""
    if array.ndim == 0:
        return "true" if array else "false"
    return "[" + ", ".join(_nested(a) for a in array) + "]"


def _storage_dtype(element) -> np.dtype:
    """The numpy dtype that stores an element type's values in a dense attribute's hex form."""
    if isinstance(element, ir.IntegerType) and ir.IntegerType(element).width < 8 and not T.is_bool(element):
        return np.dtype(np.uint8 if ir.IntegerType(element).is_unsigned else np.int8)
    return T.to_numpy_dtype(element)


# Dimension numbers and other structured attributes.

_FIELD = re.compile(r"(\w+)\s*=\s*(\[[^\]]*\]|-?\d+)")


class Struct(AttrKind):
    """A `#stablehlo.<mnemonic><field = [..], ...>` attribute <-> a dataclass of int lists and ints."""

    def __init__(self, cls, mnemonic: str):
        self.cls, self.mnemonic = cls, mnemonic

    def to_attr(self, value):
        if isinstance(value, dict):
            value = self.cls(**value)
        if not isinstance(value, self.cls):
            raise TypeError(f"expected {self.cls.__name__} (or a dict of its fields), got {value!r}")
        parts = []
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if isinstance(v, (list, tuple)):
                if v:
                    parts.append(f"{f.name} = [{', '.join(str(int(x)) for x in v)}]")
            elif v is not None:
                parts.append(f"{f.name} = {int(v)}")
        return ir.Attribute.parse(f"#stablehlo.{self.mnemonic}<{', '.join(parts)}>")

    def to_python(self, attr):
        values = {}
        for name, text in _FIELD.findall(str(attr)):
            values[name] = [int(x) for x in text[1:-1].split(",") if x.strip()] if text.startswith("[") else int(text)
        return self.cls(**values)


@dataclass(frozen=True)
class DotDimensionNumbers:
    """dot_general's batching and contracting dimensions of each side."""

    lhs_batching_dimensions: list[int] = field(default_factory=list)
    rhs_batching_dimensions: list[int] = field(default_factory=list)
    lhs_contracting_dimensions: list[int] = field(default_factory=list)
    rhs_contracting_dimensions: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class GatherDimensionNumbers:
    """gather's dimension numbers, as the specification names them."""

    offset_dims: list[int] = field(default_factory=list)
    collapsed_slice_dims: list[int] = field(default_factory=list)
    operand_batching_dims: list[int] = field(default_factory=list)
    start_indices_batching_dims: list[int] = field(default_factory=list)
    start_index_map: list[int] = field(default_factory=list)
    index_vector_dim: int = 0


@dataclass(frozen=True)
class ScatterDimensionNumbers:
    """scatter's dimension numbers, as the specification names them."""

    update_window_dims: list[int] = field(default_factory=list)
    inserted_window_dims: list[int] = field(default_factory=list)
    input_batching_dims: list[int] = field(default_factory=list)
    scatter_indices_batching_dims: list[int] = field(default_factory=list)
    scatter_dims_to_operand_dims: list[int] = field(default_factory=list)
    index_vector_dim: int = 0


@dataclass(frozen=True)
class ChannelHandle:
    """A channel for collectives and send/recv: its id and type (0 invalid, 1 device-to-device, 2/3 host)."""

    handle: int = 0
    type: int = 0


@dataclass(frozen=True)
class OutputOperandAlias:
    """custom_call: an output (tuple index path) that aliases an operand (index and tuple path)."""

    output_tuple_indices: list[int] = field(default_factory=list)
    operand_index: int = 0
    operand_tuple_indices: list[int] = field(default_factory=list)


class ChannelHandleKind(Struct):
    """`#stablehlo.channel_handle<handle = 1, type = 0>`, whose fields are always printed."""

    def to_attr(self, value):
        if isinstance(value, int):
            value = ChannelHandle(handle=value, type=1)
        if isinstance(value, dict):
            value = ChannelHandle(**value)
        return ir.Attribute.parse(f"#stablehlo.channel_handle<handle = {int(value.handle)}, type = {int(value.type)}>")


class AliasList(AttrKind):
    """custom_call's output_operand_aliases <-> list[OutputOperandAlias]."""

    _one = Struct(OutputOperandAlias, "output_operand_alias")

    def to_attr(self, value):
        texts = []
        for alias in value:
            alias = OutputOperandAlias(**alias) if isinstance(alias, dict) else alias
            texts.append(f"#stablehlo.output_operand_alias<output_tuple_indices = {list(alias.output_tuple_indices)}, "
                         f"operand_index = {int(alias.operand_index)}, "
                         f"operand_tuple_indices = {list(alias.operand_tuple_indices)}>")
        return ir.ArrayAttr.get([ir.Attribute.parse(t) for t in texts])

    def to_python(self, attr):
        return [self._one.to_python(a) for a in ir.ArrayAttr(attr)]


@dataclass(frozen=True)
class ConvDimensionNumbers:
    """convolution's layout: batch/feature/spatial dimensions of input, kernel and output."""

    input_batch_dimension: int = 0
    input_feature_dimension: int = 1
    input_spatial_dimensions: list[int] = field(default_factory=lambda: [2, 3])
    kernel_input_feature_dimension: int = 1
    kernel_output_feature_dimension: int = 0
    kernel_spatial_dimensions: list[int] = field(default_factory=lambda: [2, 3])
    output_batch_dimension: int = 0
    output_feature_dimension: int = 1
    output_spatial_dimensions: list[int] = field(default_factory=lambda: [2, 3])

    @staticmethod
    def from_layout(input: str, kernel: str, output: str) -> "ConvDimensionNumbers":
        """From layout strings such as ("NHWC", "HWIO", "NHWC"): N/C (or b/f), I/O (or i/o), and spatial
        letters, which pair up by letter (so "NHWC" with a "WHIO" kernel pairs H with H)."""
        order = [c for c in input if c not in "NbCf"]

        def spatial(layout: str, skip: str) -> list[int]:
            letters = [c for c in layout if c not in skip]
            if sorted(letters) != sorted(order):
                raise ValueError(f"layouts {input!r}, {kernel!r}, {output!r} do not share spatial dimensions")
            return [layout.index(c) for c in order]

        def find(layout: str, letters: str) -> int:
            found = [i for i, c in enumerate(layout) if c in letters]
            if len(found) != 1:
                raise ValueError(f"layout {layout!r} needs exactly one of {' or '.join(letters)}")
            return found[0]

        return ConvDimensionNumbers(
            find(input, "Nb"), find(input, "Cf"), spatial(input, "NbCf"),
            find(kernel, "Ii"), find(kernel, "Oo"), spatial(kernel, "IiOo"),
            find(output, "Nb"), find(output, "Cf"), spatial(output, "NbCf"))


class ConvKind(AttrKind):
    """`#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>` <-> ConvDimensionNumbers."""

    def to_attr(self, value):
        if isinstance(value, dict):
            value = ConvDimensionNumbers(**value)
        if isinstance(value, (tuple, list)) and len(value) == 3 and all(isinstance(v, str) for v in value):
            value = ConvDimensionNumbers.from_layout(*value)
        if not isinstance(value, ConvDimensionNumbers):
            raise TypeError(f"expected ConvDimensionNumbers, a dict of its fields or three layout strings, got {value!r}")
        v = value
        text = (f"{self._side(v.input_batch_dimension, v.input_feature_dimension, v.input_spatial_dimensions, 'b', 'f')}x"
                f"{self._side(v.kernel_input_feature_dimension, v.kernel_output_feature_dimension, v.kernel_spatial_dimensions, 'i', 'o')}->"
                f"{self._side(v.output_batch_dimension, v.output_feature_dimension, v.output_spatial_dimensions, 'b', 'f')}")
        return ir.Attribute.parse(f"#stablehlo.conv<{text}>")

    @staticmethod
    def _side(first: int, second: int, spatial: list[int], a: str, b: str) -> str:
        """One bracketed layout, such as [b, 0, 1, f]."""
        rank = 2 + len(spatial)
        slots = [""] * rank
        for pos, letter in ((first, a), (second, b)):
            if not 0 <= pos < rank or slots[pos]:
                raise ValueError(f"convolution dimension numbers: {letter} at {pos} is out of range or repeated")
            slots[pos] = letter
        for i, pos in enumerate(spatial):
            if not 0 <= pos < rank or slots[pos]:
                raise ValueError(f"convolution dimension numbers: spatial dimension {pos} is out of range or repeated")
            slots[pos] = str(i)
        return "[" + ", ".join(slots) + "]"

    def to_python(self, attr):
        text = str(attr)
        if "raw" in text:
            return ConvDimensionNumbers(**Struct(ConvDimensionNumbers, "conv").to_python(attr).__dict__)
        sides = re.findall(r"\[([^\]]*)\]", text)
        parsed = []
        for side in sides:
            letters = [s.strip() for s in side.split(",")]
            spatial = sorted((int(c), i) for i, c in enumerate(letters) if c.isdigit())
            parsed.append((letters, [i for _, i in spatial]))
        (li, ls), (ki, ks), (oi, os_) = parsed
        return ConvDimensionNumbers(li.index("b"), li.index("f"), ls, ki.index("i"), ki.index("o"), ks,
                                    oi.index("b"), oi.index("f"), os_)


# Enums of the specification, each listed once.
COMPARISON_DIRECTION = Enum("comparison_direction", ("EQ", "NE", "GE", "GT", "LE", "LT"))
COMPARISON_TYPE = Enum("comparison_type", ("NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"))
PRECISION = Enum("precision", ("DEFAULT", "HIGH", "HIGHEST"))
FFT_TYPE = Enum("fft_type", ("FFT", "IFFT", "RFFT", "IRFFT"))
RNG_DISTRIBUTION = Enum("rng_distribution", ("UNIFORM", "NORMAL"))
RNG_ALGORITHM = Enum("rng_algorithm", ("DEFAULT", "THREE_FRY", "PHILOX"))
TRANSPOSE = Enum("transpose", ("TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"))
API_VERSION = IntegerEnum({"API_VERSION_UNSPECIFIED": 0, "API_VERSION_ORIGINAL": 1, "API_VERSION_STATUS_RETURNING": 2,
                           "API_VERSION_STATUS_RETURNING_UNIFIED": 3, "API_VERSION_TYPED_FFI": 4})


@dataclass(frozen=True)
class DotAlgorithm:
    """dot_general's algorithm: precisions the operands are rounded to, the accumulation type, decomposition counts."""

    lhs_precision_type: str
    rhs_precision_type: str
    accumulation_type: str
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


class DotAlgorithmKind(AttrKind):
    """`#stablehlo.dot_algorithm<...>` <-> DotAlgorithm (types as their MLIR spelling)."""

    _COUNTS = ("lhs_component_count", "rhs_component_count", "num_primitive_operations")

    def to_attr(self, value):
        if isinstance(value, dict):
            value = DotAlgorithm(**value)
        if not isinstance(value, DotAlgorithm):
            raise TypeError(f"expected DotAlgorithm (or a dict of its fields), got {value!r}")
        for name in self._COUNTS:
            if int(getattr(value, name)) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(value, name)}")
        types = [str(T.element_type(getattr(value, f))) for f in ("lhs_precision_type", "rhs_precision_type",
                                                                     "accumulation_type")]
        text = (f"#stablehlo.dot_algorithm<lhs_precision_type = {types[0]}, rhs_precision_type = {types[1]}, "
                f"accumulation_type = {types[2]}, "
                + ", ".join(f"{n} = {int(getattr(value, n))}" for n in self._COUNTS)
                + f", allow_imprecise_accumulation = {str(bool(value.allow_imprecise_accumulation)).lower()}>")
        try:
            return ir.Attribute.parse(text)
        except ir.MLIRError as e:
            raise ValueError("; ".join(d.message for d in e.error_diagnostics) or str(e)) from None

    def to_python(self, attr):
        fields = dict(re.findall(r"(\w+)\s*=\s*([^,>\s]+)", str(attr)))
        return DotAlgorithm(fields["lhs_precision_type"], fields["rhs_precision_type"], fields["accumulation_type"],
                            *(int(fields[n]) for n in self._COUNTS), fields["allow_imprecise_accumulation"] == "true")


class Canonical(AttrKind):
    """Another kind whose builder-side Python value is read back from the attribute it made.

    Rules then see one form whatever the caller passed: a dataclass for a
    dict or layout strings, upper-case enum names, lists for arrays.
    """

    def __init__(self, kind: AttrKind):
        self.kind = kind

    def to_attr(self, value):
        return self.kind.convert(value)[1]

    def to_python(self, attr):
        return self.kind.to_python(attr)

    def convert(self, value):
        attr = self.to_attr(value)
        return self.to_python(attr), attr


class Unit(AttrKind):
    """A unit attribute flag <-> bool: True puts the attribute on the op, False leaves it off."""

    def to_attr(self, value):
        return ir.UnitAttr.get() if value else None

    def to_python(self, attr):
        return True

    def convert(self, value):
        if isinstance(value, ir.Attribute):
            return True, value
        return bool(value), self.to_attr(value)
