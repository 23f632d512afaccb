"""What every StableHLO op family shares: op specs, registered op classes, builders and their errors.

An op is declared once as an `OpSpec`: its parameters in builder order
(operands, attributes, Python-only parameters such as a result shape, and
regions), a Python type-inference rule written from the specification, and
how many results it has. `define` turns a spec into

- an `OpView` subclass registered with the bindings, so parsed ops come back
  as that class with properties for operands, attributes (as Python values)
  and regions;
- a snake_case builder that converts attributes, infers result types, builds
  region bodies from Python callables, creates the op at the insertion point,
  and verifies it.

Result types come from the Python rules: the bindings' C++ inference hooks
crash when handed attributes (the ops keep them as properties), so instead
the verifier, which runs after every build, compares the result types with
the dialect's own C++ inference for every op that implements it.

A rule that fails raises `TypeError` (element types) or `ValueError`
(shapes, attribute values) naming the op, the user's source line, the rule
and the operand types.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Callable

from iree.compiler._mlir_libs import _mlir as _cext

from oxla import ir
from oxla.dialects.stablehlo import types as T
from oxla.dialects.stablehlo.attributes import AttrKind

REQUIRED = object()
_OXLA_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# Declarations -----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Operand:
    """An operand; `variadic` ones take a list (or one value, which makes the builder return one value).

    A variadic group that is not given is empty (`return_()`).
    """

    name: str
    variadic: bool = False


@dataclass(frozen=True)
class Attr:
    """An attribute: its name, how it converts, and its default.

    The default is REQUIRED, None (omitted from the op), a value the reader
    reports when the attribute is absent, or a function of the earlier
    arguments whose result the builder stores.
    """

    name: str
    kind: AttrKind
    default: object = None


@dataclass(frozen=True)
class Param:
    """A Python-only parameter the inference rule reads (a result shape or dtype); not stored on the op."""

    name: str
    default: object = REQUIRED


@dataclass(frozen=True)
class Region:
    """A region built by a Python callable; `arguments(args)` gives its block's argument types.

    A `variadic` region parameter (case's branches) takes a list of callables
    and gives the op one region per callable; it must be the last region.
    """

    name: str
    arguments: Callable = lambda args: []
    variadic: bool = False


@dataclass
class OpSpec:
    """One op: name (without `stablehlo.`), parameters in builder order, inference rule, result arity."""

    name: str
    params: tuple
    infer: Callable
    results: str = "one"  # "one", "variadic" or "none"
    family: str = ""
    doc: str = ""
    result_names: tuple = ()
    infer_after_regions: bool = False
    dialect: str = "stablehlo"
    check_results: bool = False  # the rule runs even when result_types= is given (it reads args.result_types)

    @property
    def full_name(self) -> str:
        """The registered op name, such as "stablehlo.add"."""
        return f"{self.dialect}.{self.name}"

    def of(self, kind) -> list:
        """The parameters of one kind (Operand, Attr, Param or Region)."""
        return [p for p in self.params if isinstance(p, kind)]


class RuleError(Exception):
    """Raised by inference rules; the builder turns it into a TypeError/ValueError with full context."""

    def __init__(self, rule: str, kind: type = ValueError):
        super().__init__(rule)
        self.rule, self.kind = rule, kind


def fail(rule: str, kind: type = ValueError):
    """Reports a broken rule of the specification (ValueError for shapes/values, TypeError for dtypes)."""
    raise RuleError(rule, kind)


def require(condition, rule: str, kind: type = ValueError) -> None:
    """Fails with `rule` unless `condition` holds."""
    if not condition:
        raise RuleError(rule, kind)


# Builder arguments ------------------------------------------------------------------------------------------------

class Args:
    """The bound arguments of one builder call, by parameter name (operands as ir.Values)."""

    def __init__(self, spec: OpSpec):
        self.spec = spec

    def types(self, name: str) -> list:
        """The types of an operand group (a list even for single operands)."""
        v = getattr(self, name)
        return [x.type for x in v] if isinstance(v, list) else [v.type]


def value_of(x, what: str) -> tuple[ir.Value, bool]:
    """(the ir.Value, whether it came wrapped) for an operand given as ir.Value or a wrapper with `.value`."""
    if isinstance(x, ir.Value):
        return x, False
    inner = getattr(x, "value", None)
    if isinstance(inner, ir.Value):
        return inner, True
    raise TypeError(f"{what}: expected an MLIR value (ir.Value or Tensor), got {type(x).__name__} {x!r:.60}")


# Locations and errors ---------------------------------------------------------------------------------------------

def user_frame():
    """The innermost stack frame outside the oxla package: the line that asked for the op."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_OXLA_DIR):
        frame = frame.f_back
    return frame


def where() -> str:
    """`file:line` of the user's line, for messages."""
    frame = user_frame()
    return f"{frame.f_code.co_filename}:{frame.f_lineno}" if frame else "<unknown>"


def default_location(context) -> ir.Location:
    """The active location, or else a file location at the user's line (so diagnostics point at it)."""
    try:
        current = ir.Location.current
    except ValueError:
        current = None
    if current is not None:
        return current
    frame = user_frame()
    if frame is None:
        return ir.Location.unknown(context)
    return ir.Location.file(frame.f_code.co_filename, frame.f_lineno, 0, context)


def describe(args: Args) -> str:
    """The operands and their types, as error messages show them."""
    parts = []
    for p in args.spec.of(Operand):
        v = getattr(args, p.name, None)
        if isinstance(v, list):
            parts.append(f"{p.name}: [{', '.join(str(x.type) for x in v)}]")
        elif v is not None:
            parts.append(f"{p.name}: {v.type}")
    return ", ".join(parts) if parts else "no operands"


def build_error(spec: OpSpec, kind: type, message: str, args: Args | None = None) -> Exception:
    """The exception a builder raises: op name, user's line, the rule, and the operand types."""
    context = f" (operands {describe(args)})" if args is not None else ""
    return kind(f"{spec.full_name} at {where()}: {message}{context}")


# Op classes -------------------------------------------------------------------------------------------------------

# The bindings look for a Python module per dialect namespace on every op they wrap and do not remember
# a miss; finding this package under "oxla.dialects" makes the lookup for "stablehlo" succeed once.
if "oxla.dialects" not in _cext.globals.dialect_search_modules:
    _cext.globals.append_dialect_search_prefix("oxla.dialects")


@_cext.register_dialect
class _StableHLODialect(ir.Dialect):
    """The StableHLO dialect's Python face."""

    DIALECT_NAMESPACE = "stablehlo"


class StableHLOOp(ir.OpView):
    """Base of every registered StableHLO op class; `SPEC` is the op's declaration."""

    SPEC: OpSpec

    def _operand_group(self, index: int):
        """Operand group `index` (a value, or a list for variadic groups of equal size)."""
        params = self.SPEC.of(Operand)
        n_variadic = sum(p.variadic for p in params)
        operands = list(self.operation.operands)
        size = (len(operands) - (len(params) - n_variadic)) // n_variadic if n_variadic else 0
        start = sum(size if p.variadic else 1 for p in params[:index])
        return operands[start:start + size] if params[index].variadic else operands[start]


def _camel(name: str) -> str:
    """`dot_general` -> `DotGeneral`."""
    return "".join(part.capitalize() for part in name.replace("-", "_").split("_"))


def _attribute_property(p: Attr):
    """A read-only property giving attribute `p` as a Python value (its default when absent)."""
    def get(self):
        attrs = self.operation.attributes
        if p.name not in attrs:
            return None if p.default is REQUIRED or callable(p.default) else p.default
        return p.kind.to_python(attrs[p.name])
    return property(get, doc=f"The `{p.name}` attribute as a Python value.")


def _op_class(spec: OpSpec) -> type:
    """The registered OpView subclass for a spec, with a property per operand, attribute and region."""
    regions = spec.of(Region)
    namespace = {"OPERATION_NAME": spec.full_name, "SPEC": spec,
                 "_ODS_REGIONS": (sum(not p.variadic for p in regions), not any(p.variadic for p in regions)),
                 "__doc__": spec.doc or f"`{spec.full_name}`."}
    for i, p in enumerate(spec.of(Operand)):
        namespace[_free_name(p.name)] = property(lambda self, i=i: self._operand_group(i), doc=f"Operand `{p.name}`.")
    for p in spec.of(Attr):
        namespace[_free_name(p.name)] = _attribute_property(p)
    for i, p in enumerate(regions):
        get = (lambda self, i=i: list(self.operation.regions)[i:]) if p.variadic else \
            (lambda self, i=i: self.operation.regions[i])
        namespace[_free_name(p.name)] = property(get, doc=f"Region{'s' * p.variadic} `{p.name}`.")
    for i, name in enumerate(spec.result_names):
        namespace[_free_name(name)] = property(lambda self, i=i: self.operation.results[i], doc=f"Result `{name}`.")
    cls = type(_camel(spec.name) + "Op", (StableHLOOp,), namespace)
    return _cext.register_operation(_StableHLODialect, replace=True)(cls) if spec.dialect == "stablehlo" else cls


def _free_name(name: str) -> str:
    """A property name that does not hide an OpView member (`name` becomes `name_`)."""
    return name + "_" if hasattr(ir.OpView, name) else name


# Builders ---------------------------------------------------------------------------------------------------------

_KEYWORDS = {"and", "or", "not", "if", "while", "return", "case"}
# Builders return Tensor wrappers while a program body is being built (the program builder raises this).
wrap_depth = [0]
wrapper = [None]


class Builder:
    """The snake_case builder of one op; calling it builds the op at the insertion point."""

    def __init__(self, spec: OpSpec):
        self.spec = spec
        self.__name__ = self.__qualname__ = builder_name(spec.name)
        self.__doc__ = _builder_doc(spec)
        self._names = [p.name for p in spec.params]
        self._by_name = {p.name: p for p in spec.params}

    def __repr__(self) -> str:
        return f"<builder {self.spec.full_name}>"

    def __call__(self, *positional, result_types=None, loc=None, ip=None, **keywords):
        spec = self.spec
        bound = self._bind(positional, keywords)
        args, flat, attrs, wrapped, singles = Args(spec), [], {}, wrap_depth[0] > 0, True
        try:
            for p in spec.params:
                value = bound.get(p.name, REQUIRED)
                if isinstance(p, Operand):
                    got, was_wrapped, single = self._operand(p, value)
                    wrapped |= was_wrapped
                    singles &= single
                    setattr(args, p.name, got)
                    flat.extend(got if isinstance(got, list) else [got])
                elif isinstance(p, Attr):
                    if value is REQUIRED and callable(p.default):
                        value = p.default(args)
                    setattr(args, p.name, self._attribute(p, value, attrs))
                elif isinstance(p, Param):
                    setattr(args, p.name, p.default if value is REQUIRED else value)
                else:
                    setattr(args, p.name, value)
        except (TypeError, ValueError) as e:
            raise build_error(spec, type(e), str(e)) from None
        context = ir.context()
        if loc is None:
            loc = default_location(context)
        with loc:
            if ip is None:
                try:
                    ip = ir.InsertionPoint.current
                except ValueError:
                    ip = None
                if ip is None:
                    raise build_error(spec, RuntimeError, "no insertion point: build inside a Program function or "
                                      "`with ir.InsertionPoint(block):`") from None
            try:
                args.result_types = None if result_types is None else _as_types(result_types)
            except (TypeError, ValueError) as e:
                raise build_error(spec, TypeError, f"result_types: {e}") from None
            args.ip = ip
            if spec.infer_after_regions and result_types is None:
                op = self._create_after_regions(args, flat, attrs, loc, ip)
            else:
                op = self._create(args, flat, attrs, result_types, loc, ip)
        self._verify(op, args)
        return self._results(op, wrapped, singles and spec.results == "variadic")

    def _bind(self, positional, keywords) -> dict:
        """Parameter name -> given value, with Python's usual errors for bad calls."""
        if len(positional) > len(self._names):
            raise TypeError(f"{self.__name__}() takes {len(self._names)} positional arguments but {len(positional)} were given")
        bound = dict(zip(self._names, positional))
        for k, v in keywords.items():
            if k not in self._by_name:
                raise TypeError(f"{self.__name__}() got an unexpected keyword argument {k!r}")
            if k in bound:
                raise TypeError(f"{self.__name__}() got multiple values for argument {k!r}")
            bound[k] = v
        for p in self.spec.params:
            if p.name not in bound and (isinstance(p, Region) or (isinstance(p, Operand) and not p.variadic)
                                        or getattr(p, "default", None) is REQUIRED):
                raise TypeError(f"{self.__name__}() missing required argument {p.name!r}")
        return bound

    def _operand(self, p: Operand, value):
        """(ir.Value or list of them, whether any was wrapped, whether a variadic group came as one value)."""
        if not p.variadic:
            v, w = value_of(value, f"operand {p.name}")
            return v, w, True
        if value is REQUIRED:
            return [], False, False
        if isinstance(value, (list, tuple)):
            pairs = [value_of(x, f"operand {p.name}[{i}]") for i, x in enumerate(value)]
            return [v for v, _ in pairs], any(w for _, w in pairs), False
        v, w = value_of(value, f"operand {p.name}")
        return [v], w, True

    @staticmethod
    def _attribute(p: Attr, value, attrs: dict):
        """The Python value of attribute `p` (default when not given); records its MLIR form in `attrs`."""
        if value is REQUIRED or value is None:
            if p.default is REQUIRED:
                raise TypeError(f"attribute {p.name} is required")
            return p.default
        try:
            python, attr = p.kind.convert(value)
        except (TypeError, ValueError) as e:
            raise type(e)(f"attribute {p.name}: {e}") from None
        if attr is not None:  # None leaves the attribute off (a false unit flag)
            attrs[p.name] = attr
        return python

    def _infer(self, args: Args) -> list:
        """Result types from the spec's rule; broken rules become TypeError/ValueError."""
        try:
            types = self.spec.infer(args)
        except RuleError as e:
            raise build_error(self.spec, e.kind, e.rule, args) from None
        except (TypeError, ValueError) as e:  # a bad dtype or shape parameter, found by a shared helper
            raise build_error(self.spec, type(e), str(e), args) from None
        return list(types) if isinstance(types, (list, tuple)) else [types]

    def _region_bodies(self, args) -> list:
        """(Region, label, callable) for each region the op gets: one per callable of a variadic region."""
        plan = []
        for p in self.spec.of(Region):
            body = getattr(args, p.name)
            if not p.variadic:
                plan.append((p, p.name, body))
            elif isinstance(body, (list, tuple)):
                plan.extend((p, f"{p.name}[{k}]", b) for k, b in enumerate(body))
            else:
                raise build_error(self.spec, TypeError, f"region {p.name}: expected a list of callables, got {body!r}")
        return plan

    def _create(self, args, flat, attrs, result_types, loc, ip):
        """Creates the op (results given or inferred) and builds its regions."""
        types = self._infer(args) if result_types is None or self.spec.check_results else args.result_types
        plan = self._region_bodies(args)
        op = ir.Operation.create(self.spec.full_name, results=types, operands=flat, attributes=attrs,
                                 regions=len(plan), loc=loc, ip=ip)
        try:
            for region, (p, label, body) in zip(op.regions, plan):
                self._build_region(region, p, label, body, args, loc)
        except BaseException:
            op.erase()  # leave no half-built op behind
            raise
        return op

    def _create_after_regions(self, args, flat, attrs, loc, ip):
        """For ops whose results are what their regions return (if, case): bodies first, then the op."""
        plan = self._region_bodies(args)
        n = len(plan)
        scratch = ir.Operation.create(self.spec.full_name, results=[], operands=flat, attributes=attrs,
                                      regions=n, loc=loc, ip=ip)
        try:
            for region, (p, label, body) in zip(scratch.regions, plan):
                self._build_region(region, p, label, body, args, loc)
            args.region_results = [[v.type for v in r.blocks[0].operations[len(r.blocks[0].operations) - 1].operands]
                                   for r in scratch.regions]
            types = self._infer(args)
        except BaseException:
            scratch.erase()  # leave no half-built op behind
            raise
        op = ir.Operation.create(self.spec.full_name, results=types, operands=flat, attributes=attrs,
                                 regions=n, loc=loc, ip=ip)
        for old, new in zip(scratch.regions, op.regions):
            old.blocks[0].append_to(new)
        scratch.erase()
        return op

    def _build_region(self, region, p: Region, label: str, body, args: Args, loc) -> None:
        """Fills a region: one block with the rule's argument types, the callable's body, then a return.

        The callable returns the region's values (one value, or a list/tuple,
        empty for none), or builds the return itself and returns None or it.
        """
        if not callable(body):
            raise build_error(self.spec, TypeError, f"region {label}: expected a callable that builds the body, got {body!r}")
        try:
            arg_types = p.arguments(args)
        except RuleError as e:
            raise build_error(self.spec, e.kind, e.rule, args) from None
        block = region.blocks.append(*arg_types)
        block_args = list(block.arguments)
        if wrap_depth[0] > 0:
            block_args = [wrapper[0](a) for a in block_args]
        with ir.InsertionPoint(block):
            returned = body(*block_args)
            last = block.operations[len(block.operations) - 1] if len(block.operations) else None
            if last is not None and _is_terminator(last):
                if returned is None or (isinstance(returned, (ir.OpView, ir.Operation))
                                        and returned.operation == last.operation):
                    return
                raise build_error(self.spec, TypeError, f"region {label}: the callable built a return and also "
                                  f"returned {returned!r:.60}; do one or the other")
            if returned is None:
                raise build_error(self.spec, TypeError, f"region {label}: the callable returned None; return the "
                                  "region's values ([] for none) or build the return op")
            values = returned if isinstance(returned, (list, tuple)) else [returned]
            try:
                operands = [value_of(v, f"region {label} result")[0] for v in values]
            except TypeError as e:
                raise build_error(self.spec, TypeError, str(e)) from None
            ir.Operation.create(f"{self.spec.dialect}.return", operands=operands, loc=loc)

    def _verify(self, op, args: Args) -> None:
        """Runs the op's verifier (which also checks our result types against the dialect's C++ inference)."""
        try:
            op.verify()
        except ir.MLIRError as e:
            messages = "; ".join(d.message for d in e.error_diagnostics) or str(e)
            op.erase()
            raise build_error(self.spec, ValueError, f"the op does not verify: {messages}", args) from None

    def _results(self, op, wrapped: bool, single: bool):
        """What the builder returns: one value, a tuple of values, or the op when it has no results."""
        results = list(op.results)
        if wrapped:
            results = [wrapper[0](r) if T.is_tensor(r.type) else r for r in results]
        if self.spec.results == "none" and not results:
            return op.opview
        if self.spec.results == "one" or (single and len(results) == 1):
            return results[0]
        return tuple(results)


def _is_terminator(op) -> bool:
    """Whether `op` is a region terminator (a return of any dialect)."""
    return op.operation.name.endswith(".return")


def _as_types(result_types) -> list:
    """Explicit result types as a list of ir.Types (accepts one type, TensorSpecs and MLIR spellings)."""
    items = result_types if isinstance(result_types, (list, tuple)) else [result_types]
    out = []
    for t in items:
        if isinstance(t, str):
            try:
                t = ir.Type.parse(t, ir.context())
            except ir.MLIRError:
                raise TypeError(f"not an MLIR type: {t!r}") from None
        elif isinstance(t, T.TensorSpec):
            t = t.mlir_type()
        elif not isinstance(t, ir.Type):
            raise TypeError(f"expected an ir.Type, a TensorSpec or a type's spelling, got {t!r}")
        out.append(t)
    return out


def builder_name(op_name: str) -> str:
    """The builder's Python name: snake_case, with a trailing underscore for Python keywords."""
    name = op_name.replace("-", "_")
    return name + "_" if name in _KEYWORDS else name


def _builder_doc(spec: OpSpec) -> str:
    """The builder's docstring: the op's doc and its signature in parameter order."""
    params = []
    for p in spec.params:
        label = p.name + ("..." if isinstance(p, (Operand, Region)) and p.variadic else "")
        if isinstance(p, (Attr, Param)) and p.default is not REQUIRED:
            label += f"={p.default!r}"
        params.append(label)
    params.append("*, result_types=None, loc=None, ip=None")
    return f"{builder_name(spec.name)}({', '.join(params)})\n\nBuilds `{spec.full_name}`. {spec.doc}"


# The registry -----------------------------------------------------------------------------------------------------

OPS: dict[str, OpSpec] = {}
CLASSES: dict[str, type] = {}
BUILDERS: dict[str, Builder] = {}


def define(spec: OpSpec) -> tuple[type, Builder]:
    """Registers an op: its class (parsed ops come back as it) and its builder."""
    OPS[spec.full_name] = spec
    CLASSES[spec.full_name] = _op_class(spec)
    BUILDERS[spec.full_name] = Builder(spec)
    return CLASSES[spec.full_name], BUILDERS[spec.full_name]


def export(spec: OpSpec, namespace: dict) -> None:
    """Defines an op and puts its class and builder into a family module's namespace."""
    cls, build = define(spec)
    cls.__module__ = build.__module__ = namespace["__name__"]
    namespace[cls.__name__] = cls
    namespace[build.__name__] = build
    namespace.setdefault("__all__", []).extend([cls.__name__, build.__name__])
