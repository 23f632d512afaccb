"""The MLIR bindings oxla uses, its one context, and parse/print/verify.

`from oxla import ir` gives every name of IREE's `iree.compiler.ir` (Module,
Operation, Type, Attribute, Location, ...) plus:

- `context()`: the single MLIR context, owned by an in-process IREE compiler
  session, with every dialect IREE knows registered;
- `parse()` / `parse_file()`: MLIR text, MLIR bytecode, or a StableHLO
  portable artifact (VHLO bytecode, as `jax.export` writes) into a module;
- `to_text()` / `to_bytecode()`: the other direction;
- `verify()`: structured diagnostics instead of text on stderr.
"""

from __future__ import annotations

import io
import os
from contextlib import contextmanager
from typing import Iterator, Union

from iree.compiler.ir import *  # noqa: F401,F403  (the public face of the bindings)

from oxla._iree import CompilerSession, passmanager, rewrite  # noqa: F401
from oxla._iree import ir as _ir
from oxla.diagnostics import Diagnostic, DiagnosticCollector, SourceLocation
from oxla.errors import ParseError, VerificationError

Source = Union[str, bytes, bytearray, memoryview]

_MLIR_BYTECODE_MAGIC = b"ML\xefR"
_SESSION: CompilerSession | None = None


def session() -> CompilerSession:
    """The process-wide compiler session whose context oxla uses everywhere."""
    global _SESSION
    if _SESSION is None:
        _SESSION = CompilerSession()
        # IREE's session accepts unknown dialects; oxla, like mlir-opt, rejects
        # them unless asked (see allow_unregistered).
        _SESSION.context.allow_unregistered_dialects = False
        # Load every dialect now (8 ms): a pass that builds ops of a dialect
        # the input did not use would otherwise load it mid-pipeline, which
        # MLIR does not support (ops came out with the wrong names).
        _SESSION.context.load_all_available_dialects()
    return _SESSION


def context() -> _ir.Context:
    """The one MLIR context: every dialect registered, shared by all of oxla."""
    return session().context


@contextmanager
def allow_unregistered(enabled: bool = True) -> Iterator[None]:
    """Temporarily lets the context accept ops of unknown dialects."""
    ctx = context()
    before = ctx.allow_unregistered_dialects
    ctx.allow_unregistered_dialects = enabled
    try:
        yield
    finally:
        ctx.allow_unregistered_dialects = before


def is_bytecode(data: bytes | bytearray | memoryview) -> bool:
    """True for MLIR bytecode, which includes StableHLO portable artifacts."""
    return bytes(data[:4]) == _MLIR_BYTECODE_MAGIC


def parse(source: Source, *, name: str = "<source>", allow_unregistered_dialects: bool = False) -> _ir.Module:
    """Parses MLIR text, MLIR bytecode or a StableHLO portable artifact.

    `name` is the file name that locations and diagnostics carry. Raises
    ParseError with structured diagnostics when the input is not valid.
    """
    if isinstance(source, str):
        data = source.encode("utf-8")
    elif isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        raise TypeError(f"parse() takes str or bytes, not {type(source).__name__}")
    if not is_bytecode(data) and b"\0" in data:
        loc = _position_of(data, data.index(b"\0"), name)
        raise ParseError(diagnostics=[Diagnostic.error("input contains a NUL byte: not MLIR text or bytecode", loc)])
    ctx = context()
    # Only errors are taken here; warnings and remarks reach the caller's handlers.
    with allow_unregistered(allow_unregistered_dialects), DiagnosticCollector(ctx, ("error",)) as diags:
        try:
            module = session().parse_buffer(data, name)
        except _ir.MLIRError as exc:
            diags.add_error(exc)
            module = None
    if module is None:
        errors = diags.errors or [Diagnostic.error("could not parse the input", SourceLocation(name, 1, 1))]
        raise ParseError(diagnostics=errors)
    return _from_bytecode_if_vhlo(module) if is_bytecode(data) else module


def _from_bytecode_if_vhlo(module: _ir.Module) -> _ir.Module:
    """Turns a StableHLO portable artifact (VHLO ops) into StableHLO; others pass through."""
    from oxla.dialects import vhlo

    return vhlo.to_stablehlo(module) if vhlo.is_vhlo(module) else module


def parse_file(path: str | os.PathLike, *, allow_unregistered_dialects: bool = False) -> _ir.Module:
    """Parses a file; its path becomes the file name in locations.

    MLIR reads the file itself here, which is faster than parse() on a buffer.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data and not is_bytecode(data):
        return parse(data, name=path)  # reports the NUL byte with its position
    with allow_unregistered(allow_unregistered_dialects), DiagnosticCollector(context(), ("error",)) as diags:
        try:
            module = _ir.Module.parseFile(path, context=context())
        except _ir.MLIRError as exc:
            diags.add_error(exc)
            raise ParseError(diagnostics=diags.errors) from None
    return _from_bytecode_if_vhlo(module) if is_bytecode(data) else module


def _position_of(data: bytes, offset: int, name: str) -> SourceLocation:
    """The line:col of a byte offset, for diagnostics made in Python."""
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return SourceLocation(name, line, col)


def walk(module_or_op, fn, *, post_order: bool = False) -> None:
    """Calls `fn(op)` on the op and every op nested in it.

    Unlike `Operation.walk`, `fn` may return None to go on, and an exception
    it raises comes out unchanged (the bindings wrap it in a RuntimeError).
    """
    raised: list[BaseException] = []

    def visit(op):
        try:
            result = fn(op)
        except BaseException as exc:  # re-raised below, outside the native walk
            raised.append(exc)
            return _ir.WalkResult.INTERRUPT
        return _ir.WalkResult.ADVANCE if result is None else result

    order = _ir.WalkOrder.POST_ORDER if post_order else _ir.WalkOrder.PRE_ORDER
    _operation(module_or_op).walk(visit, order)
    if raised:
        raise raised[0]


def ops(module_or_op, *, post_order: bool = False) -> list[_ir.Operation]:
    """The op and every op nested in it, in walk order, as a list to loop over."""
    found: list[_ir.Operation] = []
    walk(module_or_op, found.append, post_order=post_order)
    return found


def clone_remapped(op, mapping: dict, ip=None) -> _ir.Operation:
    """A copy of `op` (at `ip`, else the current insertion point) whose operands, nested ops' included,
    are replaced by their values in `mapping` where it holds them."""
    copy = op.clone(ip=ip)

    def remap(child):
        for i, operand in enumerate(child.operands):
            replacement = mapping.get(operand)
            if replacement is not None:
                child.operands[i] = replacement

    walk(copy, remap)
    return copy


def producer(value) -> _ir.Operation | None:
    """The Operation that defines `value`, or None for a block argument."""
    return value.owner.operation if isinstance(value, _ir.OpResult) else None


def constant_int(value) -> int | None:
    """The value of an `arith.constant` of integer or index type that defines `value`, or None."""
    op = producer(value)
    if op is None or op.name != "arith.constant" or not isinstance(op.attributes["value"], _ir.IntegerAttr):
        return None
    return _ir.IntegerAttr(op.attributes["value"]).value


def user(use) -> _ir.Operation:
    """The Operation that holds one use of a value (an item of `value.uses`)."""
    return use.owner.operation if isinstance(use.owner, _ir.OpView) else use.owner


def block_ops(op) -> list[_ir.Operation]:
    """The ops of the block that holds `op`, in order, as Operations.

    Looping over `block.operations` makes an OpView of each op, for which
    the bindings import its dialect's Python module (linalg's: 0.12 s).
    """
    op = _operation(op)
    return _ops_in(op.parent, op.block)


def body_ops(module_or_op) -> list[_ir.Operation]:
    """The ops of the first block of the op's first region (a module's top level), as Operations."""
    op = _operation(module_or_op)
    return _ops_in(op, op.regions[0].blocks[0])


def append_definitions(module, text: str) -> None:
    """Parses top-level ops (functions, executables) from MLIR text in the module's context and appends
    them to its body. Function declarations in the text (no body) only let it verify on its own and
    are left out: the module has those functions."""
    module = _operation(module)
    parsed = _ir.Module.parse(text, module.context)
    body = module.regions[0].blocks[0]
    last = (body_ops(module) or [None])[-1]
    for op in body_ops(parsed):
        if op.name in ("func.func", "llvm.func") and not len(op.regions[0].blocks):
            continue
        if last is None:
            op.detach_from_parent()
            body.append(op)
        else:  # moved as an Operation: detaching makes an OpView, which imports the op's dialect module
            op.move_after(last)
        last = op


def _ops_in(owner: _ir.Operation, block) -> list[_ir.Operation]:
    """The ops of `block`, one of the blocks of `owner`'s regions, in order."""
    found: list[_ir.Operation] = []

    def visit(nested):
        if nested == owner:
            return None
        if nested.block == block:
            found.append(nested)
        return _ir.WalkResult.SKIP  # nothing nested in an op of the block is in it

    walk(owner, visit)
    return found


def _operation(module_or_op) -> _ir.Operation:
    """Accepts a Module, an OpView or an Operation; returns the Operation."""
    return getattr(module_or_op, "operation", module_or_op)


def to_text(
    module_or_op,
    *,
    debug_info: bool = False,
    generic: bool = False,
    large_elements_limit: int | None = None,
    assume_verified: bool = True,
) -> str:
    """Prints a module or op as MLIR text (optionally with locations, or generic)."""
    buf = io.StringIO()
    _operation(module_or_op).print(
        file=buf,
        enable_debug_info=debug_info,
        print_generic_op_form=generic,
        large_elements_limit=large_elements_limit,
        assume_verified=assume_verified,
    )
    return buf.getvalue()


def to_bytecode(module_or_op, *, version: int | None = None) -> bytes:
    """Serializes a module or op as MLIR bytecode."""
    buf = io.BytesIO()
    _operation(module_or_op).write_bytecode(buf, desired_version=version)
    return buf.getvalue()


def verify(module_or_op) -> list[Diagnostic]:
    """Runs the verifier; returns its diagnostics (empty when the IR is valid)."""
    op = _operation(module_or_op)
    with DiagnosticCollector(op.context) as diags:
        try:
            op.verify()
        except _ir.MLIRError as exc:
            diags.add_error(exc)
    return diags.diagnostics


def verify_or_raise(module_or_op) -> None:
    """Like verify(), but raises VerificationError when anything is wrong."""
    errors = [d for d in verify(module_or_op) if d.severity == "error"]
    if errors:
        raise VerificationError(diagnostics=errors)
