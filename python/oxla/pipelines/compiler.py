"""oxla.compile: StableHLO in, a VM flatbuffer for a target out, all in one process.

The module stays one MLIR object in oxla's context from start to end: IREE's
phases run on it in place, one invocation per phase, so oxla pipelines and
Python callables can inspect and rewrite it between any two phases.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Union

from oxla import ir, transforms
from oxla._iree import CapturedStderr, NativeDiagnostics, c_function
from oxla.diagnostics import Diagnostic, SourceLocation
from oxla.errors import OxlaError
from oxla.pipelines import levels
from oxla.pipelines.phases import PHASES, hook_boundary, phase_index
from oxla.pipelines.targets import CONTRACTIONS, Target, pass_names, resolve

Hook = Union[str, Callable]

# oxla's own passes that run before IREE's input phase, in order: they rewrite
# valid StableHLO that IREE would reject (or miscompile) into forms it lowers.
INPUT_LEGALIZATION_PASSES = (
    "oxla-llvmcpu-scalar-loops",
    "oxla-llvmcpu-lapack-kernels",
    # Before the legalizations that build loops of their own: those compile and run as built, on every
    # target, while the Jacobi loops of eigh and svd, their condition's previous norm read in the body, gave
    # NaN for complex matrices on llvm-cpu (see unread_carried.py).
    "oxla-unread-carried-values",
    "oxla-clamp-gather-indices",
    "oxla-scatter-slice-updates",
    "oxla-canonicalize-scatter",
    "oxla-guard-scatter-indices",
    "oxla-device-indexed-slices",
    "oxla-drop-identity-bitcasts",
    "oxla-legalize-select-and-scatter",
    "oxla-legalize-unsigned",
    "oxla-legalize-bf16-converts",
    "oxla-legalize-fft",
    "oxla-legalize-top-k",
    "oxla-legalize-stable-sorts",
    "oxla-legalize-sort-constants",
    "oxla-legalize-lapack-calls",
    "oxla-legalize-cholesky",
    "oxla-legalize-triangular-solve",
    "oxla-split-complex-constants",
    "oxla-pad-complex-windows",
    "oxla-split-complex-pads",
    "oxla-split-complex-selects",
    "oxla-expand-math",
    # Last: the products the passes before it build are covered too (the SVD kernels' among them).
    "oxla-isolate-narrowed-matmul-operands",
)
INPUT_LEGALIZATION = f"builtin.module({','.join(INPUT_LEGALIZATION_PASSES)})"
# The input legalization's first passes, which choose a faster form of what the passes after them would
# legalize, on the targets they apply to: compile(optimize=False) leaves them out, and disable_passes may
# name them, as for the codegen passes.
LEGALIZATION_CHOICES = ("oxla-llvmcpu-scalar-loops", "oxla-llvmcpu-lapack-kernels")
# oxla's StableHLO optimizer (simplify, fold, canonicalize, cse, dce to a fixed
# point), run before the legalization unless compile(optimize=False).
OPTIMIZATION = "builtin.module(oxla-hlo-opt)"
# Run on the VM module of every program, whatever the target and flags, before it is returned or serialized:
# a workaround for an IREE bytecode encoder bug that nulls a ref a branch passes twice (see
# oxla/transforms/vm_branches.py).
VM_WORKAROUNDS = "builtin.module(oxla-vm-distinct-branch-refs)"


# Input-legalization options that depend on the target, as (pass, option, whether `target` needs it): top_k
# and fft without 64-bit integers where the device code has none, every fft oxla's where IREE's own lowering
# is wrong.
_TARGET_OPTIONS = (
    ("oxla-legalize-top-k", "distinct-keys=false", lambda target: not target.wide_integers),
    ("oxla-legalize-fft", "i64-words=false", lambda target: not target.wide_integers),
    ("oxla-legalize-fft", "iree-forms=true", lambda target: not target.iree_fft),
)


def input_legalization(target: Target, left_out=()) -> str:
    """INPUT_LEGALIZATION for `target`, each pass with the options of _TARGET_OPTIONS that `target` needs,
    less the passes `left_out` (of LEGALIZATION_CHOICES)."""
    def spelled(name: str) -> str:
        options = [option for owner, option, needed in _TARGET_OPTIONS if owner == name and needed(target)]
        return f"{name}{{{' '.join(options)}}}" if options else name
    kept = [name for name in INPUT_LEGALIZATION_PASSES if name not in left_out]
    return f"builtin.module({','.join(spelled(name) for name in kept)})"


# Flags that name the target: oxla sets the target through the module (see
# device_target), never per session, where list options only grow.
_RESERVED_FLAGS = ("--iree-hal-target-device", "--iree-hal-local-target-device-backends")


class CompileError(OxlaError):
    """A phase rejected the program; `phase` names it, diagnostics say where and why."""

    def __init__(self, phase: str, diagnostics) -> None:
        self.phase = phase
        shown = [Diagnostic(d.severity, d.location, d.message, _useful_notes(d)) for d in diagnostics]
        body = "\n".join(str(d) for d in shown) or "no diagnostic was emitted"
        super().__init__(f"compilation failed in phase '{phase}':\n{body}", shown)


class CodegenPassesWarning(UserWarning):
    """IREE failed on the program as oxla's codegen passes left it, and the program was compiled without
    them: it runs, slower than it should. The message has IREE's first error (an oxla bug to report)."""


def _useful_notes(diag: Diagnostic) -> tuple[Diagnostic, ...]:
    """Drops the notes that print whole ops: one message per problem, not a wall of IR."""
    return tuple(n for n in diag.notes if not n.message.startswith("see current operation"))


@dataclass(frozen=True)
class FunctionSignature:
    """A public function of the compiled program: MLIR types of its inputs and results."""

    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]

    def __str__(self) -> str:
        return f"@{self.name}({', '.join(self.inputs)}) -> ({', '.join(self.outputs)})"


@dataclass
class Artifact:
    """A compiled program: the .vmfb bytes and everything needed to reproduce or run it."""

    vmfb: bytes
    target: Target
    chip: str
    flags: list[str]
    signatures: dict[str, FunctionSignature]
    phase_seconds: dict[str, float] = field(default_factory=dict)
    optimized: bool = False  # whether oxla-hlo-opt ran on the program first (compile's optimize=)
    flag_set: str = ""  # which of the target's default flag sets compiled it (Target.flag_sets)
    codegen_passes: tuple[str, ...] = ()  # oxla's pipelines that ran between IREE's phases (Target.codegen_passes)
    from_cache: bool = False  # served from a cache on disk (compile's cache=, or tuning's): nothing compiled

    @property
    def driver(self) -> str:
        """The oxla.runtime device that runs this artifact."""
        return self.target.driver

    def save(self, path: str | os.PathLike) -> None:
        """Writes the .vmfb; `iree-run-module` and `oxla.runtime.load` read it (on a CPU with AMX, where
        oxla's bf16 matmuls use its tiles, only processes that ask Linux for the tile state run those,
        as oxla.runtime does and iree-run-module does not)."""
        with open(path, "wb") as f:
            f.write(self.vmfb)

    def __repr__(self) -> str:
        funcs = ", ".join(self.signatures)
        return f"<Artifact {self.target.name}:{self.chip} {len(self.vmfb)} bytes, functions: {funcs}>"


class _Compiler:
    """Drives one IREE compiler session: flags, phases, invocations."""

    def __init__(self) -> None:
        self.session = ir.session().session
        self.defaults = dict(split_flag(f) for f in self.session.get_flags(False))
        self.current: dict[str, str] = {}
        self.pinned: set[str] = set()  # flags IREE derives from a level that a compile gave (levels.py)
        self._to = c_function("ireeCompilerInvocationSetCompileToPhase", None, [ctypes.c_void_p, ctypes.c_char_p])
        self._from = c_function("ireeCompilerInvocationSetCompileFromPhase", None, [ctypes.c_void_p, ctypes.c_char_p])
        # These calls release the GIL: the pipeline runs passes on worker threads, and a diagnostic one
        # of them emits takes the GIL to reach the Python handler, so holding it here would deadlock.
        self._pipeline = c_function("ireeCompilerInvocationPipeline", ctypes.c_bool, [ctypes.c_void_p, ctypes.c_int])
        self._output_vm = c_function(
            "ireeCompilerInvocationOutputVMBytecode", ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_void_p]
        )

    def use_flags(self, flags: list[str]) -> None:
        """Makes exactly `flags` (plus defaults) active: earlier compiles leave nothing behind. A flag IREE
        derives from the optimization level cannot be unset once given; it gets the value its level derives."""
        wanted = levels.derived_values(self.pinned, dict(split_flag(f) for f in flags))
        self.pinned.update(name for name in wanted if levels.is_derived(name))
        for name in set(self.current) - set(wanted):
            self.session.set_flags(f"{name}={self.defaults.get(name, '')}")
        changes = [f"{k}={v}" for k, v in wanted.items() if self.current.get(k) != v]
        if changes:
            try:
                self.session.set_flags(*changes)
            except ValueError as exc:
                # Some of `changes` may have been applied: put every flag either set touches back.
                self._reset(set(self.current) | set(wanted))
                raise ValueError(f"invalid compiler flag: {exc}") from None
        self.current = wanted

    def _reset(self, names) -> None:
        """Sets each named flag back to its default, one at a time (an unknown name is skipped)."""
        for name in names:
            try:
                self.session.set_flags(f"{name}={self.defaults.get(name, '')}")
            except ValueError:
                pass
        self.current = {}

    def run_phases(self, module, start: int, stop: int, hooks: dict[int, list[Hook]], times: dict) -> None:
        """Runs phases start+1..stop on `module` in place, hooks after each listed phase."""
        _run_hooks(module, hooks.get(start, ()))
        for index in range(start + 1, stop + 1):
            began = time.perf_counter()
            self._one_phase(module, PHASES[index - 1], PHASES[index])
            times[PHASES[index]] = time.perf_counter() - began
            _run_hooks(module, hooks.get(index, ()))

    def _one_phase(self, module, after: str, upto: str) -> None:
        inv = self.session.invocation()
        try:
            inv.import_module(module.operation)
            self._from(inv._inv_p, after.encode())
            self._to(inv._inv_p, upto.encode())
            with NativeDiagnostics(ir.context()) as diags, CapturedStderr(stdout=True) as native:
                ok = self._pipeline(inv._inv_p, 0)
            errors, others = _by_severity(diags)
            if not ok:
                raise CompileError(upto, errors + _native_output(native.text))
            _report(others, native.text)
        finally:
            inv.close()

    def vm_bytecode(self, module) -> bytes:
        """Serializes a module that has reached the 'vm' phase into a .vmfb."""
        from iree.compiler.api import Output

        inv = self.session.invocation()
        try:
            inv.import_module(module.operation)
            self._from(inv._inv_p, b"vm")
            self._to(inv._inv_p, b"end")
            out = Output.open_membuffer()
            with NativeDiagnostics(ir.context()) as diags:
                failed = not self._pipeline(inv._inv_p, 0) or self._output_vm(inv._inv_p, out._output_p)
            errors, others = _by_severity(diags)
            if failed:
                raise CompileError("end", errors)
            _report(others)
            return bytes(out.map_memory())
        finally:
            inv.close()


def _by_severity(diags: NativeDiagnostics) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """(the errors, the warnings and remarks) a phase reported."""
    found = [Diagnostic.of(d) for d in diags.diagnostics]
    return [d for d in found if d.severity == "error"], [d for d in found if d.severity != "error"]


def _report(diagnostics: list[Diagnostic], native_text: str = "") -> None:
    """Writes a phase's warnings and remarks, and what its tools printed, to stderr as mlir-opt would."""
    text = "".join(f"{d}\n" for d in diagnostics) + native_text
    if text:
        sys.stderr.write(text)


_COMPILER: _Compiler | None = None


def _compiler() -> _Compiler:
    global _COMPILER
    if _COMPILER is None:
        _COMPILER = _Compiler()
    return _COMPILER


def _native_output(text: str, keep: int = 12) -> list[Diagnostic]:
    """What the compiler's tools (the linker, say) printed, as notes: the first lines only."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return []
    shown = "\n".join(lines[:keep]) + (f"\n... ({len(lines) - keep} more lines)" if len(lines) > keep else "")
    return [Diagnostic("note", SourceLocation(), f"compiler tool output:\n{shown}")]


def split_flag(flag: str) -> tuple[str, str]:
    """("--name", "value") of a "--name=value" flag ("" when it has no value)."""
    name, _, value = flag.partition("=")
    return name, value


def flag_defaults() -> dict[str, str]:
    """IREE's default value of every compiler flag, by name (what a flag resets to)."""
    return _compiler().defaults


def _run_hooks(module, hooks) -> None:
    """Runs oxla pipelines (strings) or Python callables on the module, in order."""
    for hook in hooks:
        if isinstance(hook, str):
            transforms.run(module, hook)
        else:
            hook(module)


def as_module(source) -> ir.Module:
    """A private module to compile: parsed from text/bytes/path, or a copy of the caller's."""
    if isinstance(source, ir.Module):
        return ir.parse(ir.to_bytecode(source))  # compiling rewrites in place: leave theirs alone
    if isinstance(source, os.PathLike) or (isinstance(source, str) and looks_like_path(source)):
        return ir.parse_file(source)
    return ir.parse(source)


def looks_like_path(text: str) -> bool:
    """Whether a string source names an existing .mlir/.mlirbc file rather than holding the program."""
    return "\n" not in text and len(text) < 4096 and text.endswith((".mlir", ".mlirbc")) and os.path.exists(text)


def signatures(module) -> dict[str, FunctionSignature]:
    """The public functions of a module with their argument and result types.

    Reads `func.func` signatures in StableHLO, and the ABI declarations IREE
    records once past the 'abi' phase.
    """
    found = {}
    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func" and _visibility(op) == "public":
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            name = ir.StringAttr(op.attributes["sym_name"]).value
            found[name] = FunctionSignature(name, tuple(map(str, ftype.inputs)), tuple(map(str, ftype.results)))
        elif "iree.reflection" in op.attributes:
            declared = _from_abi_declaration(op.attributes["iree.reflection"])
            if declared is not None:
                found[declared.name] = declared
    return found


_DECLARATION = re.compile(r"func @([^(]+)\((.*?)\) -> \((.*)\)$")
_TYPED = re.compile(r"%\w+: ([^,]+(?:<[^>]*>)?)")


def _from_abi_declaration(reflection) -> FunctionSignature | None:
    """Parses IREE's `iree.abi.declaration` ("sync func @f(%input0: tensor<..>) -> (...)")."""
    if not isinstance(reflection, ir.DictAttr) or "iree.abi.declaration" not in reflection:
        return None
    match = _DECLARATION.search(ir.StringAttr(reflection["iree.abi.declaration"]).value)
    if match is None:
        return None
    name, ins, outs = match.groups()
    return FunctionSignature(name, tuple(_TYPED.findall(ins)), tuple(_TYPED.findall(outs)))


def _visibility(op) -> str:
    attrs = op.attributes
    return ir.StringAttr(attrs["sym_visibility"]).value if "sym_visibility" in attrs else "public"


def _assign_device(module, target: Target, chip: str, extra: tuple[str, ...] = ()) -> None:
    """Names the target device, with its full executable target, in the module itself."""
    attrs = module.operation.attributes
    if "hal.device.targets" not in attrs:
        with ir.context():
            attrs["hal.device.targets"] = ir.Attribute.parse(f"[{device_target(target, chip, extra)}]")


@functools.cache
def device_target(target: Target, chip: str, extra: tuple[str, ...] = ()) -> str:
    """The `#hal.device.target<...>` attribute IREE derives for a target and chip (and `extra` flags).

    IREE's target backends read their flags once per session, so a second
    chip in the same session would be ignored. A scratch session (its own
    context) resolves each chip once; only the attribute's text crosses over.
    """
    from iree.compiler.api import Session

    scratch = Session()
    try:
        scratch.set_flags(*target.flags(chip), *extra)
        with scratch.context as ctx:
            module = ir.Module.parse("func.func @f() { return }", ctx)
        inv = scratch.invocation()
        inv.import_module(module.operation)
        _compiler()._to(inv._inv_p, b"preprocessing")
        if not inv.execute():
            raise ValueError(f"IREE cannot resolve target {target.name} with chip '{chip}'")
        for op in module.body.operations:
            if op.operation.name == "util.global" and "initial_value" in op.operation.attributes:
                return str(op.operation.attributes["initial_value"])
        raise ValueError(f"IREE assigned no device for target {target.name}:{chip}")
    finally:
        scratch.close()


def _session_flags(all_flags: list[str], target: Target) -> list[str]:
    """The flags for the session: the target, its chip and options live in the module (see device_target)."""
    in_module = _RESERVED_FLAGS + (target.chip_flag,) + tuple(o.split("=")[0] for o in target.options)
    return [f for f in all_flags if not f.startswith(in_module)]


def _executable_flags(flags, target: Target) -> tuple[str, ...]:
    """The caller's flags that shape the target's executables (ukernels, CPU features...): they must be
    resolved into the module's device target, since IREE's backends read them from there, not from the
    session. (The target's own options are part of Target.flags already.)"""
    prefix = target.executable_flag_prefix
    return tuple(f for f in flags if prefix and f.startswith(prefix) and not f.startswith(target.chip_flag))


def program_flags(module, target: Target, flags=(), widened: Callable[[object], bool] = lambda op: False
                  ) -> tuple[str, ...]:
    """The target's executable flags for this program's contractions (Target.plain_contractions).

    Empty when a contraction takes other operand types (unless `widened` says a codegen pass gives it
    f32 ones), or when the caller's `flags` set them already.
    """
    options, types = target.plain_contractions
    named = {f.split("=")[0] for f in flags}
    if not options or any(o.split("=")[0] in named for o in options):
        return ()
    for op in ir.ops(module):
        if op.name in CONTRACTIONS and not widened(op) and any(
                str(ir.ShapedType(v.type).element_type) not in types for v in list(op.operands)[:2]):
            return ()
    return options


def _widened(target: Target, chip: str, flags, codegen_passes) -> Callable[[object], bool]:
    """Which contractions oxla-llvmcpu-widen-half-contractions will give f32 operands on this chip."""
    from oxla.transforms.cpu_kernels import device_features, widenable, widens

    if not any("oxla-llvmcpu-widen-half-contractions" in pass_names(p) for _, p in codegen_passes):
        return lambda op: False

    @functools.cache
    def chip_features() -> frozenset[str]:  # resolved only for a program that has such a dot
        return frozenset(device_features(device_target(target, chip, _executable_flags(flags, target))))

    return lambda op: (element := widenable(op)) is not None and widens(element, chip_features())


def has_complex(module) -> bool:
    """Whether any value of the program has a complex element type (some IREE flags crash on them)."""
    found = []

    def visit(op):
        if not found and any("complex<" in str(r.type) for r in op.results):
            found.append(op)

    ir.walk(module, visit)
    return bool(found)


@dataclass(frozen=True)
class _Attempt:
    """One way to run IREE's phases: a named flag set and the oxla pipelines run between phases."""

    name: str
    flags: tuple[str, ...]
    passes: tuple[tuple[str, str], ...] = ()


def _attempts(flag_sets: list, codegen_passes: tuple[tuple[str, str], ...]) -> list[_Attempt]:
    """The flag sets in order, each with the codegen passes first (if any), then without them: a set IREE
    fails on whatever the passes do (a dynamic batch with data tiling and O3) does not cost the next set
    its passes."""
    attempts = []
    for name, flags in flag_sets:
        if codegen_passes:
            attempts.append(_Attempt(name, tuple(flags), tuple(codegen_passes)))
        attempts.append(_Attempt(name, tuple(flags)))
    return attempts


def _with_passes(hooks: dict[int, list[Hook]], passes) -> dict[int, list[Hook]]:
    """The caller's hooks with oxla's codegen pipelines first at their boundaries."""
    merged = {boundary: list(listed) for boundary, listed in hooks.items()}
    for key, pipeline in reversed(passes):
        merged.setdefault(hook_boundary(key), []).insert(0, pipeline)
    return merged


def _run_phases(compiler: _Compiler, module, target: Target, span: tuple[int, int], hooks, times: dict,
                all_flags: list[str], at: int, attempts: list[_Attempt]) -> tuple[object, _Attempt]:
    """Runs the phases with the first attempt, and again with each next one while IREE fails past its input
    (or, for an attempt with codegen passes, anywhere).

    all_flags[at:] starts with the first attempt's flags and is rewritten in
    place to those of the one that compiled. Returns (the compiled module, the
    attempt); when every attempt fails, raises the first one's error.
    """
    start, last = span
    pristine = ir.to_bytecode(module) if len(attempts) > 1 else None
    first_error = last_error = None
    for index, attempt in enumerate(attempts):
        if index:
            all_flags[at:at + len(attempts[index - 1].flags)] = attempt.flags
            compiler.use_flags(_session_flags(all_flags, target))
            module = ir.parse(pristine)
        try:
            compiler.run_phases(module, start, last, _with_passes(hooks, attempt.passes), times)
            previous = attempts[index - 1] if index else None
            if previous is not None and previous.passes and not attempt.passes and previous.flags == attempt.flags:
                first = str(last_error).splitlines()
                warnings.warn(f"IREE failed after oxla's codegen passes ({first[0]} {first[1] if len(first) > 1 else ''});"
                              " compiled without them, so the program runs slower", CodegenPassesWarning, stacklevel=3)
            return module, attempt
        except CompileError as exc:
            first_error, last_error = first_error or exc, exc
            # A failure before global optimization is the program's (an unsupported op): other flags
            # cannot help, but the same flags without oxla's codegen passes may.
            early = phase_index(exc.phase) < phase_index("global-optimization")
            if index + 1 == len(attempts) or (early and not attempt.passes):
                raise first_error from None
    raise AssertionError("unreachable")


def compile(
    source,
    target: str = "llvm-cpu",
    *,
    compile_to: str | None = None,
    compile_from: str | None = None,
    hooks: Mapping[str, Hook | list[Hook]] | None = None,
    cpu: str | None = None,
    gpu: str | None = None,
    keep_f64: bool | None = None,
    opt_level: str | None = None,
    flags: list[str] | tuple[str, ...] = (),
    legalize: bool = True,
    optimize: bool = True,
    disable_passes: Iterable[str] = (),
    tune: bool = False,
    cache=None,
):
    """Compiles StableHLO (a module, MLIR text or bytecode, a portable artifact, a path).

    target: 'llvm-cpu', 'vulkan-spirv', 'cuda' or 'rocm', optionally ':chip'
    (or cpu=/gpu=). compile_to='<phase>' returns the module at that phase;
    compile_from='<phase>' resumes a module that is at that phase. hooks map
    'after:<phase>'/'before:<phase>' to oxla pipeline strings or callables
    taking the module. legalize=False skips oxla's input legalization
    (INPUT_LEGALIZATION); optimize=False skips oxla's StableHLO optimizer
    (OPTIMIZATION, timed as phase_seconds['oxla-hlo-opt']), the target's
    codegen passes (Target.codegen_passes) and the legalization's
    LEGALIZATION_CHOICES; disable_passes names codegen passes or
    LEGALIZATION_CHOICES to leave out (ValueError for a codegen pass the
    target does not run).
    Returns an Artifact (or the module with compile_to).

    The target's default flag sets (Target.flag_sets: for llvm-cpu O3 and
    data tiling) come before opt_level and flags, which override them. When
    IREE fails with a set past its input phase, the phases run again with the
    next (the first set runs with the codegen passes, then without);
    Artifact.flag_set and .codegen_passes say what compiled.

    cache: a directory that keeps whole artifacts by program and options
    (oxla.pipelines.cache), so compiling the same program again, in any
    process, reads the .vmfb instead (Artifact.from_cache). None uses
    $OXLA_COMPILE_CACHE when it is set, True that or ~/.cache/oxla/compile,
    False none. Only whole compiles without hooks are cached.

    tune=True (llvm-cpu) compiles the candidate configurations of
    oxla.pipelines.tune, times them here and keeps the fastest, cached by
    program and device so the next call returns at once
    (Artifact.tuning says what was measured).
    """
    if tune:
        from oxla.pipelines.tune import compile_tuned  # tune imports this module

        return compile_tuned(source, target, compile_to=compile_to, compile_from=compile_from, hooks=hooks,
                             cpu=cpu, gpu=gpu, keep_f64=keep_f64, opt_level=opt_level, flags=flags,
                             legalize=legalize, optimize=optimize, disable_passes=disable_passes)
    tgt, chip = resolve(target)
    codegen_passes = tgt.codegen_passes_without(set(disable_passes).difference(LEGALIZATION_CHOICES))
    left_out = set(LEGALIZATION_CHOICES) if not optimize else set(disable_passes).intersection(LEGALIZATION_CHOICES)
    chip = cpu or gpu or chip or tgt.default_chip
    stop = phase_index(compile_to) if compile_to else len(PHASES) - 1
    start = phase_index(compile_from) if compile_from else 0
    if start >= stop and compile_to:
        raise ValueError(f"compile_to='{compile_to}' is not after compile_from='{compile_from}'")
    for flag in flags:
        if flag.startswith(_RESERVED_FLAGS):
            raise ValueError(f"{flag.split('=')[0]} is set by target=; pass target='{tgt.name}' instead")
    keep = tgt.keep_f64 if keep_f64 is None else keep_f64
    from oxla.pipelines import cache as compile_cache  # it imports this module's Artifact

    # Only whole compiles without hooks are cached.
    cache_dir = None if compile_to or compile_from or hooks else compile_cache.compile_cache_dir(cache)
    if cache_dir is not None:
        key, source, cached = compile_cache.look_up(cache_dir, source, {
            "target": tgt.name, "chip": chip, "flags": list(flags), "opt_level": opt_level, "keep_f64": keep,
            "legalize": legalize, "optimize": optimize, "disable_passes": sorted(set(disable_passes))})
        if cached is not None:
            return cached
    module = as_module(source)
    all_flags = tgt.flags(chip)
    all_flags.append(f"--iree-input-demote-f64-to-f32={'false' if keep else 'true'}")
    flag_sets = tgt.flag_sets_for(has_complex(module))
    defaults_at = len(all_flags)
    all_flags.extend(flag_sets[0][1])
    if opt_level:
        all_flags.append(f"--iree-opt-level={opt_level}")
    if start == 0:  # contractions are read in StableHLO
        chosen = program_flags(module, tgt, flags, _widened(tgt, chip, flags, codegen_passes if optimize else ()))
    else:
        chosen = ()
    all_flags.extend(chosen)
    all_flags.extend(flags)

    sigs = signatures(module)
    boundaries: dict[int, list[Hook]] = {}
    for key, value in (hooks or {}).items():
        boundaries.setdefault(hook_boundary(key), []).extend(value if isinstance(value, list) else [value])

    compiler = _compiler()
    # The target is set in the module (see device_target); the session gets the rest.
    compiler.use_flags(_session_flags(all_flags, tgt))
    if start < phase_index("preprocessing"):
        _assign_device(module, tgt, chip, _executable_flags(flags, tgt) + chosen)
    times: dict[str, float] = {}
    optimized = start == 0 and optimize
    if optimized:
        began = time.perf_counter()
        transforms.run(module, OPTIMIZATION)
        times["oxla-hlo-opt"] = time.perf_counter() - began
    if start == 0 and legalize:
        transforms.run(module, input_legalization(tgt, left_out))
    last = min(stop, phase_index("vm"))
    attempts = _attempts(flag_sets, codegen_passes if optimize and start < phase_index("dispatch-creation") else ())
    module, attempt = _run_phases(compiler, module, tgt, (start, last), boundaries, times,
                                  all_flags, defaults_at, attempts)
    if last == phase_index("vm"):  # a VM module, returned or serialized, is one the encoder handles
        transforms.run(module, VM_WORKAROUNDS)
    if compile_to and stop <= phase_index("vm"):
        return module
    began = time.perf_counter()
    vmfb = compiler.vm_bytecode(module)
    times["end"] = time.perf_counter() - began
    artifact = Artifact(vmfb, tgt, chip, all_flags, sigs, times, optimized, attempt.name,
                        tuple(pipeline for _, pipeline in attempt.passes))
    if cache_dir is not None:
        compile_cache.store(cache_dir, key, artifact)
    return artifact
