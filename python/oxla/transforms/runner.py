"""Running one pipeline that mixes Python and native passes, in order.

The pipeline becomes a single MLIR PassManager: each run of consecutive
native passes is added as pipeline text, each Python pass as an external
pass. MLIR can only add external passes at the top level, so a Python pass
nested under an op anchor (`func.func(oxla-x)`) runs as a top-level pass that
visits the anchored ops itself; the result is the same because passes
anchored on an op may only touch that op.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable, Iterator, TextIO

from oxla import ir
from oxla._iree import CapturedStderr
from oxla.diagnostics import DiagnosticCollector
from oxla.errors import PassFailure, PipelineError
from oxla.transforms.native import native_passes
from oxla.transforms.pipeline_syntax import OpPipeline, PassElement, parse_pipeline
from oxla.transforms.registry import Pass, lookup, unknown_pass_message


@dataclass
class Instrumentation:
    """What to report while a pipeline runs (mlir-opt's --mlir-print-* and timing)."""

    print_before_all: bool = False
    print_after_all: bool = False
    print_before: frozenset[str] = frozenset()
    print_after: frozenset[str] = frozenset()
    print_after_failure: bool = False
    print_module_scope: bool = False
    print_debug_info: bool = False
    print_generic: bool = False
    timing: bool = False
    verify_each: bool = True
    stream: TextIO | None = None  # where Python-side printing goes (default: stderr)


@dataclass
class _Step:
    """One entry of the built pass manager: native text or a Python pass."""

    path: tuple[str, ...]
    native: list[PassElement] = field(default_factory=list)
    python: Pass | None = None
    element: PassElement | None = None


class PassPipeline:
    """A parsed pipeline, ready to run on modules.

    `text` uses MLIR's syntax; without an op anchor around it, the passes run
    on whatever op the pipeline is given (a module, usually).
    """

    def __init__(self, text: str | list) -> None:
        elements = parse_pipeline(text) if isinstance(text, str) else list(text)
        self.text = text if isinstance(text, str) else ",".join(e.to_text() for e in elements)
        if len(elements) == 1 and isinstance(elements[0], OpPipeline):
            self.anchor: str | None = elements[0].op_name
            self.elements = elements[0].elements
        else:
            self.anchor = None
            self.elements = elements
        self.steps = list(self._flatten(self.elements, ()))

    def _flatten(self, elements, path: tuple[str, ...]) -> Iterator[_Step]:
        """Turns the element tree into steps, resolving Python passes and options."""
        for element in elements:
            if isinstance(element, OpPipeline):
                yield from self._flatten(element.elements, path + (element.op_name,))
                continue
            cls = lookup(element.name)
            if cls is None:
                yield _Step(path, native=[element], element=element)
            else:
                yield _Step(path, python=cls.from_options(element.options), element=element)

    def __str__(self) -> str:
        return self.text

    def run(self, module, instrumentation: Instrumentation | None = None) -> None:
        """Runs the pipeline on `module` (an ir.Module or ir.Operation) in place.

        Raises PipelineError for a malformed pipeline, PassFailure when a pass
        fails; both carry structured diagnostics.
        """
        op = getattr(module, "operation", module)
        inst = instrumentation or Instrumentation()
        anchor = self.anchor or op.name
        if anchor != op.name:
            raise PipelineError(f"the pipeline is anchored on '{anchor}' but was given a '{op.name}' op")
        errors: list[BaseException] = []
        # MLIR aborts the process if module-scope IR printing meets a multithreaded context.
        single_thread = inst.print_module_scope and _prints_ir(inst)
        with op.context:
            if single_thread:
                op.context.enable_multithreading(False)
            pm = ir.passmanager.PassManager(anchor)
            try:
                self._build(pm, anchor, inst, errors)
                self._instrument(pm, inst)
                self._execute(pm, op, errors)
            finally:
                del pm  # the timing report prints when the pass manager goes away
                if single_thread:
                    op.context.enable_multithreading(True)

    def validate(self, root: str = "builtin.module") -> None:
        """Checks every pass name, option and anchor without running anything."""
        anchor = self.anchor or root
        if anchor != root:
            raise PipelineError(f"the pipeline is anchored on '{anchor}' but will be given a '{root}' op")
        with ir.context():
            self._build(ir.passmanager.PassManager(anchor), anchor, Instrumentation(), [])

    def _build(self, pm, anchor: str, inst: Instrumentation, errors: list) -> None:
        """Adds every step to `pm`, grouping consecutive native passes into one text."""
        pending: list[_Step] = []
        for step in self.steps:
            if step.python is None and not _wants_print(step, inst):
                if pending and pending[-1].path != step.path:
                    _add_native(pm, pending)
                    pending = []
                pending.append(step)
                continue
            _add_native(pm, pending)
            pending = []
            name = step.element.name
            if name in inst.print_before:
                pm.add(_printer(step.path, f"Before {name}", inst), name="PrintIR", argument="oxla-print-ir")
            if step.python is not None:
                _check_anchor(step, anchor)
                pm.add(_python_callback(step, errors), name=type(step.python).__name__, argument=name,
                       description=step.python.summary())
            else:
                _add_native(pm, [step])
            if name in inst.print_after:
                pm.add(_printer(step.path, f"After {name}", inst), name="PrintIR", argument="oxla-print-ir")
        _add_native(pm, pending)

    @staticmethod
    def _instrument(pm, inst: Instrumentation) -> None:
        pm.enable_verifier(inst.verify_each)
        if inst.print_before_all or inst.print_after_all or inst.print_after_failure:
            pm.enable_ir_printing(
                print_before_all=inst.print_before_all,
                print_after_all=inst.print_after_all or inst.print_after_failure,
                print_module_scope=inst.print_module_scope,
                print_after_failure=inst.print_after_failure,
                enable_debug_info=inst.print_debug_info,
                print_generic_op_form=inst.print_generic,
            )
        if inst.timing:
            pm.enable_timing()

    def _execute(self, pm, op, errors: list) -> None:
        # Only errors are taken here; warnings and remarks go on to the
        # caller's handlers (or MLIR's default printing).
        with DiagnosticCollector(op.context, severities=("error",)) as diags:
            try:
                pm.run(op)
                return
            except ir.MLIRError as exc:
                diags.add_error(exc)
        raise PassFailure(diagnostics=diags.diagnostics) from (errors[0] if errors else None)


def _prints_ir(inst: Instrumentation) -> bool:
    return bool(inst.print_before_all or inst.print_after_all or inst.print_after_failure
                or inst.print_before or inst.print_after)


def _wants_print(step: _Step, inst: Instrumentation) -> bool:
    name = step.element.name
    return name in inst.print_before or name in inst.print_after


def _add_native(pm, steps: list[_Step]) -> None:
    """Adds consecutive native passes (same nesting) as one pipeline text."""
    if not steps:
        return
    text = ",".join(s.element.to_text() for s in steps)
    for op_name in reversed(steps[0].path):
        text = f"{op_name}({text})"
    with CapturedStderr() as captured:
        try:
            pm.add(text)
            return
        except ValueError as exc:
            error = str(exc)
    message = f"{captured_text(captured)} {error}"
    raise PipelineError(_explain_native_error(steps, message)) from None


def captured_text(captured: CapturedStderr) -> str:
    """Whatever LLVM printed while the pass was being added (option errors), tidied."""
    return " ".join(line.strip(" :") for line in captured.text.splitlines() if line.strip())


def _explain_native_error(steps: list[_Step], message: str) -> str:
    """Turns MLIR's pipeline-parser message into one line that names the culprit."""
    known = native_passes()
    for step in steps:
        if known and step.element.name not in known:
            return unknown_pass_message(step.element.name, known)
    if "does not refer to a registered pass" in message:
        name = steps[0].element.name
        for step in steps:
            if f"'{step.element.name}'" in message:
                name = step.element.name
        return unknown_pass_message(name, known)
    # MLIR appends "failed to add ..." for every enclosing level: keep the cause.
    detail = " ".join(line.strip() for line in message.strip().splitlines() if line.strip())
    detail = detail.split(" failed to add ")[0].strip()
    return f"invalid pass pipeline '{','.join(s.element.to_text() for s in steps)}': {detail}"


def _check_anchor(step: _Step, root_anchor: str) -> None:
    """Rejects a Python pass scheduled on the wrong op (MLIR would abort the process)."""
    wanted = step.python.anchor
    where = step.path[-1] if step.path else root_anchor
    if wanted is not None and wanted != where:
        raise PipelineError(
            f"pass '{step.element.name}' runs on '{wanted}' ops but is scheduled on '{where}' ops; "
            f"place it inside '{wanted}(...)'"
        )


def nested_ops(op, path: tuple[str, ...]) -> list:
    """The ops a nested pipeline would visit: direct children named path[0], and so on."""
    ops = [op]
    for name in path:
        ops = [child.operation for parent in ops for region in parent.regions
               for block in region.blocks for child in block.operations if child.operation.name == name]
    return ops


def _python_callback(step: _Step, errors: list) -> Callable:
    """Wraps a Python pass as an MLIR external pass callback that never raises."""
    instance, name = step.python, step.element.name

    def callback(op, external_pass) -> None:
        for target in nested_ops(op, step.path):
            try:
                # Builders inside the pass get the anchored op's location by default.
                with target.location:
                    instance.run(target)
            except PassFailure as exc:
                (exc.op or target).location.emit_error(str(exc))
                external_pass.signal_pass_failure()
                return
            except Exception as exc:  # a bug in the pass: report it, keep the process alive
                errors.append(exc)
                # An exception from inside Operation.walk arrives as a RuntimeError
                # holding a whole traceback: its last line is the original error.
                detail = (str(exc).strip().splitlines() or [""])[-1]
                target.location.emit_error(f"pass '{name}' raised {type(exc).__name__}: {detail}")
                external_pass.signal_pass_failure()
                return

    return callback


def _printer(path: tuple[str, ...], when: str, inst: Instrumentation) -> Callable:
    """An external pass that prints the IR that the neighbouring pass sees."""

    def callback(op, external_pass) -> None:
        stream = inst.stream or sys.stderr
        targets = [op] if inst.print_module_scope or not path else nested_ops(op, path)
        stream.write(f"// -----// IR Dump {when} //----- //\n")
        for target in targets:
            stream.write(ir.to_text(target, debug_info=inst.print_debug_info, generic=inst.print_generic))
            stream.write("\n")
        stream.flush()

    return callback


def inline_calls(module) -> None:
    """Inlines the module's calls (MLIR's inliner, no cleanup pipeline after it): for passes that look
    through the functions JAX puts ops in; IREE's input phase would inline them anyway."""
    ir.passmanager.PassManager.parse("builtin.module(inline{default-pipeline=})", context=module.context).run(module)
