"""oxla-opt: an mlir-opt for oxla, where Python passes stand beside native ones.

    oxla-opt input.mlir --pass-pipeline='builtin.module(oxla-dce,cse)' -o out.mlir
    oxla-opt input.mlir --canonicalize --oxla-dce='functions=false'

Exit status 0 on success, 1 on any parse, verification, pipeline or pass
error; every error is a diagnostic (`file:line:col: error: ...`), never a
Python traceback (set OXLA_DEBUG=1 to see one for an internal error).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

SPLIT_MARKER = "// -----"


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors with exit status 1, like the other errors."""

    def error(self, message: str):
        self.exit(1, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The command line, with mlir-opt's spellings."""
    p = _Parser(
        prog="oxla-opt",
        description="Parse MLIR, run a pass pipeline mixing Python and native passes, print the result.",
        epilog="Any other --<pass-name>[=<options>] adds that pass (e.g. --canonicalize, "
        "--oxla-dce='functions=false'); --list-passes shows them all.",
    )
    p.add_argument("input", nargs="?", default="-", help="input file, or - for stdin (default)")
    p.add_argument("-o", dest="output", default="-", help="output file (default: stdout)")
    p.add_argument("--pass-pipeline", "-p", dest="pipeline", help="textual pass pipeline, e.g. 'builtin.module(cse)'")
    p.add_argument("--split-input-file", action="store_true", help=f"process each '{SPLIT_MARKER}' chunk separately")
    p.add_argument("--verify-diagnostics", action="store_true", help="check diagnostics against expected-* comments")
    p.add_argument("--allow-unregistered-dialect", action="store_true", help="accept ops of unknown dialects")
    p.add_argument("--emit-bytecode", action="store_true", help="write MLIR bytecode instead of text")
    p.add_argument("--list-passes", action="store_true", help="list Python and native passes, then exit")
    p.add_argument("--verify-each", default="true", choices=["true", "false", "1", "0"],
                   help="run the verifier after each pass (default true)")
    p.add_argument("--mlir-print-ir-before-all", action="store_true")
    p.add_argument("--mlir-print-ir-after-all", action="store_true")
    p.add_argument("--mlir-print-ir-before", action="append", default=[], metavar="PASS",
                   help="print the IR before the named pass(es), comma-separated")
    p.add_argument("--mlir-print-ir-after", action="append", default=[], metavar="PASS",
                   help="print the IR after the named pass(es), comma-separated")
    p.add_argument("--mlir-print-ir-after-failure", action="store_true")
    p.add_argument("--mlir-print-ir-module-scope", action="store_true")
    p.add_argument("--mlir-disable-threading", action="store_true",
                   help="run passes on one thread (deterministic order of per-function output)")
    p.add_argument("--mlir-timing", action="store_true", help="print a per-pass timing report to stderr")
    p.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    p.add_argument("--mlir-print-op-generic", action="store_true", help="print ops in generic form")
    p.add_argument("--mlir-elide-elementsattrs-if-larger", type=int, default=None, metavar="N")
    p.add_argument("--version", action="store_true", help="print versions and exit")
    return p


@dataclass
class Chunk:
    """One piece of the input: its text (padded so line numbers stay true) and name."""

    data: bytes
    name: str
    path: str | None = None  # set when the chunk is a whole file: MLIR then reads it itself


def split_chunks(data: bytes, name: str, split: bool, path: str | None = None) -> list[Chunk]:
    """Splits the input at `// -----` lines, keeping original line numbers."""
    if not split or data[:4] == b"ML\xefR":
        return [Chunk(data, name, path)]
    # Bytes, split at "\n" only (as MLIR counts lines): decoding would alter
    # non-UTF-8 input and str.splitlines() also breaks at \f, \x1c, \u2028...
    chunks, current, first_line = [], [], 0
    marker = SPLIT_MARKER.encode()
    for number, line in enumerate(data.split(b"\n")):
        if line.strip().startswith(marker):
            chunks.append(Chunk(b"\n" * first_line + b"\n".join(current), name))
            current, first_line = [], number + 1
        else:
            current.append(line)
    chunks.append(Chunk(b"\n" * first_line + b"\n".join(current), name))
    return chunks


def pipeline_from_args(args, pass_flags: list[str]):
    """The PassPipeline the command line asks for (None when no pass is named)."""
    from oxla.errors import PipelineError
    from oxla.transforms import PassPipeline, lookup
    from oxla.transforms.native import native_anchor
    from oxla.transforms.pipeline_syntax import OpPipeline, PassElement

    if args.pipeline is not None and pass_flags:
        raise PipelineError("--pass-pipeline cannot be combined with individual pass flags")
    if args.pipeline is not None:
        return PassPipeline(args.pipeline)
    if not pass_flags:
        return None
    elements = []
    for flag in pass_flags:
        name, _, options = flag[2:].partition("=")
        element = PassElement(name, options.strip("'\""))
        cls = lookup(name)
        anchor = cls.anchor if cls is not None else native_anchor(element.to_text())
        # Like mlir-opt's implicit nesting: a pass for func.func given as a flag runs on each function.
        if anchor not in (None, "builtin.module"):
            element = OpPipeline(anchor, [element])
        elements.append(element)
    # Anchored explicitly: a lone nested flag must not make func.func the pipeline's root.
    return PassPipeline([OpPipeline("builtin.module", elements)])


def instrumentation_from_args(args):
    """The Instrumentation the --mlir-* flags ask for."""
    from oxla.transforms import Instrumentation

    def names(values):
        return frozenset(n.strip() for v in values for n in v.split(",") if n.strip())

    return Instrumentation(
        print_before_all=args.mlir_print_ir_before_all,
        print_after_all=args.mlir_print_ir_after_all,
        print_before=names(args.mlir_print_ir_before),
        print_after=names(args.mlir_print_ir_after),
        print_after_failure=args.mlir_print_ir_after_failure,
        print_module_scope=args.mlir_print_ir_module_scope,
        print_debug_info=args.mlir_print_debuginfo,
        print_generic=args.mlir_print_op_generic,
        timing=args.mlir_timing,
        verify_each=args.verify_each in ("true", "1"),
    )


def process_chunk(chunk: Chunk, args, pipeline, instrumentation) -> tuple[bytes | None, list, bool]:
    """Parses and transforms one chunk; returns (output, diagnostics, ok)."""
    from oxla import ir
    from oxla.diagnostics import Diagnostic, DiagnosticCollector
    from oxla.errors import OxlaError

    ctx = ir.context()
    with DiagnosticCollector(ctx) as collected:
        try:
            if chunk.path is not None:
                module = ir.parse_file(chunk.path, allow_unregistered_dialects=args.allow_unregistered_dialect)
            else:
                module = ir.parse(chunk.data, name=chunk.name,
                                  allow_unregistered_dialects=args.allow_unregistered_dialect)
            if pipeline is not None:
                with ir.allow_unregistered(args.allow_unregistered_dialect):
                    pipeline.run(module, instrumentation)
        except OxlaError as exc:
            return None, collected.diagnostics + (exc.diagnostics or [Diagnostic.error(str(exc))]), False
    if args.emit_bytecode:
        return ir.to_bytecode(module), collected.diagnostics, True
    text = ir.to_text(
        module,
        debug_info=args.mlir_print_debuginfo,
        generic=args.mlir_print_op_generic,
        large_elements_limit=args.mlir_elide_elementsattrs_if_larger,
    )
    return text.encode(), collected.diagnostics, not collected.errors


def read_input(path: str) -> tuple[bytes, str]:
    """Reads the input file or stdin; returns the bytes and the name for locations."""
    if path == "-":
        return sys.stdin.buffer.read(), "<stdin>"
    with open(path, "rb") as f:
        return f.read(), path


def run(argv: list[str] | None = None) -> int:
    """Runs oxla-opt; returns the exit status."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    pass_flags = [a for a in extra if a.startswith("--") and len(a) > 2]
    stray = [a for a in extra if a not in pass_flags]
    if stray:
        parser.error(f"unrecognized arguments: {' '.join(stray)}")
    if args.version:
        from oxla import __version__
        from oxla._iree import COMPILER_VERSION

        print(f"oxla {__version__} (iree-base-compiler {COMPILER_VERSION})")
        return 0
    if args.list_passes:
        return list_passes()

    from oxla.diagnostic_verifier import verify as verify_expected
    from oxla.diagnostics import format_all
    from oxla.errors import OxlaError

    try:
        pipeline = pipeline_from_args(args, pass_flags)
        if pipeline is not None:
            pipeline.validate("builtin.module")
    except OxlaError as exc:
        print(f"oxla-opt: error: {exc}", file=sys.stderr)
        return 1
    instrumentation = instrumentation_from_args(args)
    try:
        data, name = read_input(args.input)
    except OSError as exc:
        print(f"oxla-opt: error: could not open input file '{args.input}': {exc.strerror}", file=sys.stderr)
        return 1

    outputs: list[bytes] = []
    failed = False
    if args.mlir_disable_threading:
        from oxla import ir

        ir.context().enable_multithreading(False)
    file_path = None if args.input == "-" else args.input
    for chunk in split_chunks(data, name, args.split_input_file, file_path):
        out, diags, ok = process_chunk(chunk, args, pipeline, instrumentation)
        source = {name: chunk.data.decode("utf-8", "replace").split("\n")}
        if args.verify_diagnostics:
            problems = verify_expected(diags, chunk.data.decode("utf-8", "replace"), name)
            if problems:
                print(format_all(problems, source), file=sys.stderr)
                failed = True
        else:
            if diags:
                print(format_all(diags, source), file=sys.stderr)
            failed = failed or not ok
        if out is not None and ok:
            outputs.append(out)
    try:
        write_output(args.output, outputs, args.emit_bytecode)
    except OSError as exc:
        print(f"oxla-opt: error: could not open output file '{args.output}': {exc.strerror}", file=sys.stderr)
        return 1
    return 1 if failed else 0


def write_output(path: str, outputs: list[bytes], binary: bool) -> None:
    """Writes the chunks' results, separated like mlir-opt does."""
    joined = outputs[0] if len(outputs) == 1 else (b"" if binary else f"{SPLIT_MARKER}\n".encode()).join(outputs)
    if path == "-":
        sys.stdout.buffer.write(joined)
        sys.stdout.flush()
    else:
        with open(path, "wb") as f:
            f.write(joined)


def list_passes() -> int:
    """Prints every pass with its summary, Python passes with their options."""
    from oxla.transforms import native_passes, python_passes

    out = ["Python passes (oxla):"]
    for name, cls in python_passes().items():
        out.append(f"  --{name:<44} - {cls.summary()}")
        for spec in cls.option_specs():
            out.append(f"      {spec.name}=<{spec.type_name()}> (default {spec.render(spec.default)})"
                       + (f" - {spec.help}" if spec.help else ""))
    out.append("Native passes (MLIR/IREE):")
    out.extend(f"  --{name:<44} - {summary}" for name, summary in native_passes().items())
    print("\n".join(out))
    return 0


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    from oxla.tools._startup import console_main

    console_main("oxla-opt", run, argv)


if __name__ == "__main__":
    main()
