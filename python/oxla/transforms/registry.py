"""Declaring Python passes once, and finding passes by name.

A pass is a class: a kebab-case `name` starting with `oxla-`, a docstring
whose first line is its summary, the op it anchors on, typed options as
annotated fields with defaults, and one `run(op)`:

    @register_pass
    class CountOps(Pass):
        '''Counts ops and warns past a limit.'''
        name = "oxla-count-ops"
        anchor = "func.func"
        limit: int = 100

        def run(self, op):
            ...

The class becomes a frozen dataclass, so `CountOps(limit=5)` works from
Python, and `oxla-count-ops{limit=5}` from a pipeline string.
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import importlib
import re
import typing
from typing import Any, ClassVar

from oxla.errors import PipelineError
from oxla.transforms.pipeline_syntax import split_options

_NAME = re.compile(r"^oxla(-[a-z0-9]+)+$")

# Modules that define oxla's own passes; imported on the first registry lookup
# so that `import oxla.transforms` stays cheap.
BUILTIN_PASS_MODULES = (
    "oxla.transforms.stats",
    "oxla.transforms.bindings",
    "oxla.transforms.host_loops",
    "oxla.transforms.update_dispatches",
    "oxla.transforms.dce",
    "oxla.transforms.locations",
    "oxla.transforms.scatter",
    "oxla.transforms.device_indices",
    "oxla.transforms.complex",
    "oxla.transforms.select_and_scatter",
    "oxla.transforms.unsigned",
    "oxla.transforms.fft",
    "oxla.transforms.lapack",
    "oxla.transforms.lapack_kernels",
    "oxla.transforms.narrowed_operands",
    "oxla.transforms.scalar_loops",
    "oxla.transforms.unread_carried",
    "oxla.transforms.triangular_solve",
    "oxla.transforms.top_k",
    "oxla.transforms.sort",
    "oxla.transforms.arg_reductions",
    "oxla.transforms.outer_reductions",
    "oxla.transforms.convolutions",
    "oxla.transforms.math",
    "oxla.transforms.simplify",
    "oxla.transforms.fold",
    "oxla.transforms.hlo_opt",
    "oxla.transforms.loop_contractions",
    "oxla.transforms.cpu_tiles",
    "oxla.transforms.product_sums",
    "oxla.transforms.cpu_kernels",
    "oxla.transforms.tiny_matmuls",
    "oxla.transforms.strided_slices",
    "oxla.transforms.reversed_rows",
    "oxla.transforms.loop_unroll",
    "oxla.transforms.whole_reductions",
    "oxla.transforms.converts",
    "oxla.transforms.remainders",
    "oxla.transforms.rounding",
    "oxla.transforms.gathers",
    "oxla.transforms.materialize",
    "oxla.transforms.result_storage",
    "oxla.transforms.vm_branches",
)

_REGISTRY: dict[str, type["Pass"]] = {}
_builtins_loaded = False


class Pass:
    """Base class of Python passes (see the module docstring)."""

    name: ClassVar[str] = ""
    anchor: ClassVar[str | None] = "builtin.module"  # None: runs on any op

    def run(self, op) -> None:
        """Transforms `op` (an `ir.Operation` named `anchor`) in place."""
        raise NotImplementedError(f"{type(self).__name__}.run")

    @classmethod
    def summary(cls) -> str:
        """The first line of the docstring: the pass's one-line help."""
        return (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""

    @classmethod
    def option_specs(cls) -> list["OptionSpec"]:
        """The pass's options, in declaration order."""
        hints = typing.get_type_hints(cls)
        return [OptionSpec.of(f, hints[f.name]) for f in dataclasses.fields(cls)]

    @classmethod
    def from_options(cls, text: str) -> "Pass":
        """Instantiates from MLIR option text such as `max-iterations=4 fast=true`."""
        specs = {spec.name: spec for spec in cls.option_specs()}
        values: dict[str, Any] = {}
        for key, raw in split_options(text):
            spec = specs.get(key)
            if spec is None:
                raise PipelineError(_unknown("option", key, specs, f" for pass '{cls.name}'"))
            values[spec.field] = spec.convert(raw, cls.name)
        return cls(**values)

    def option_text(self) -> str:
        """The options as MLIR text, for printing pipelines back."""
        return " ".join(f"{s.name}={s.render(getattr(self, s.field))}" for s in self.option_specs())


class RewritePass(Pass):
    """A pass that rewrites, one at a time, each op named in `roots` that `matches`.

    The ops are listed before the first rewrite, so a rewrite may erase its op
    and build new ones freely.
    """

    anchor: ClassVar[str | None] = None
    roots: ClassVar[tuple[str, ...]] = ()

    def matches(self, op) -> bool:
        """Whether `op` (named in `roots`) needs the rewrite."""
        return True

    def rewrite(self, op) -> None:
        """Replaces `op` by equivalent ops."""
        raise NotImplementedError(f"{type(self).__name__}.rewrite")

    def run(self, op) -> None:
        from oxla import ir

        for child in [c for c in ir.ops(op) if c.name in self.roots and self.matches(c)]:
            self.rewrite(child)


@dataclasses.dataclass(frozen=True)
class OptionSpec:
    """One typed option of a pass: its kebab-case name, type and default."""

    name: str
    field: str
    type: Any
    default: Any
    help: str = ""

    @staticmethod
    def of(f: dataclasses.Field, hint) -> "OptionSpec":
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        return OptionSpec(f.name.replace("_", "-"), f.name, hint, default, f.metadata.get("help", ""))

    def convert(self, raw: str, pass_name: str) -> Any:
        """Parses option text into the declared type; bad text is a PipelineError."""
        try:
            return _convert(self.type, raw)
        except (ValueError, KeyError) as exc:
            raise PipelineError(
                f"invalid value '{raw}' for option '{self.name}' of pass '{pass_name}': "
                f"expected {self.type_name()} ({exc})"
            ) from None

    def render(self, value) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, enum.Enum):
            return str(value.value)
        if isinstance(value, (list, tuple)):
            return ",".join(self.render(v) for v in value)
        return str(value)

    def type_name(self) -> str:
        if isinstance(self.type, type) and issubclass(self.type, enum.Enum):
            return " | ".join(str(m.value) for m in self.type)
        return getattr(self.type, "__name__", str(self.type))


_BOOLS = {"": True, "true": True, "1": True, "on": True, "false": False, "0": False, "off": False}


def _convert(tp, raw: str):
    """Converts option text to `tp`: bool, int, float, str, Enum, list/tuple of those."""
    origin = typing.get_origin(tp)
    if origin in (list, tuple):
        (item,) = typing.get_args(tp)[:1]
        items = [_convert(item, part.strip()) for part in raw.split(",") if part.strip()]
        return tuple(items) if origin is tuple else items
    if tp is bool:
        return _BOOLS[raw.lower()]
    if tp is int:
        return int(raw, 0)
    if tp is float:
        return float(raw)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp(raw)
    return raw


def _unknown(kind: str, name: str, known, where: str = "") -> str:
    """An 'unknown X' message that offers the closest known names."""
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return f"unknown {kind} '{name}'{where}{hint}"


def register_pass(cls: type[Pass]) -> type[Pass]:
    """Class decorator: makes `cls` a frozen dataclass and registers it by name."""
    if not (isinstance(cls, type) and issubclass(cls, Pass)):
        raise TypeError("register_pass takes a subclass of oxla.transforms.Pass")
    if not _NAME.match(cls.name or ""):
        raise ValueError(f"pass name {cls.name!r} must be kebab-case and start with 'oxla-'")
    if not cls.summary():
        raise ValueError(f"pass {cls.name} needs a docstring: its first line is the pass summary")
    existing = _REGISTRY.get(cls.name)
    if existing is not None and existing.__qualname__ != cls.__qualname__:
        raise ValueError(f"pass {cls.name} is already registered by {existing.__module__}.{existing.__qualname__}")
    if "__dataclass_fields__" not in cls.__dict__:
        cls = dataclasses.dataclass(frozen=True)(cls)
    _REGISTRY[cls.name] = cls
    return cls


def _load_builtins() -> None:
    global _builtins_loaded
    if not _builtins_loaded:
        _builtins_loaded = True
        for module in BUILTIN_PASS_MODULES:
            importlib.import_module(module)


def lookup(name: str) -> type[Pass] | None:
    """The Python pass registered under `name`, or None."""
    if name.startswith("oxla-"):
        _load_builtins()
    return _REGISTRY.get(name)


def python_passes() -> dict[str, type[Pass]]:
    """Every registered Python pass, by name."""
    _load_builtins()
    return dict(sorted(_REGISTRY.items()))


def unknown_pass_message(name: str, native_names) -> str:
    """The error for a name that is neither a Python nor a native pass."""
    return _unknown("pass", name, [*python_passes(), *native_names])
