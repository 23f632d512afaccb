"""oxla-compile: StableHLO to a .vmfb for a target, in one process.

    oxla-compile model.mlir --target=llvm-cpu -o model.vmfb
    oxla-compile model.mlir --target=cuda:sm_89 --timing -o model.vmfb
    oxla-compile model.mlir --compile-to=flow            # prints the IR at that phase
    oxla-compile model.mlir --dump-phases=phases/        # one file per phase
    oxla-compile model.mlir --no-optimize -o model.vmfb  # without oxla-hlo-opt
    oxla-compile model.mlir --tune --timing -o model.vmfb  # the fastest flag set on this CPU, cached

Any other --iree-* flag is passed to the compiler as is.
"""

from __future__ import annotations

import argparse
import os
import sys



class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        self.exit(1, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    from oxla.pipelines.phases import PHASES

    p = _Parser(prog="oxla-compile", description="Compile StableHLO to a VM flatbuffer (.vmfb).")
    p.add_argument("input", nargs="?", help="MLIR text, bytecode or portable artifact; - for stdin")
    p.add_argument("-o", dest="output", help="output file (.vmfb, or IR with --compile-to); default stdout for IR")
    p.add_argument("--target", default="llvm-cpu", help="llvm-cpu | vulkan-spirv | cuda | rocm, optionally :chip")
    p.add_argument("--compile-to", choices=PHASES, metavar="PHASE", help="stop after this phase and emit its IR")
    p.add_argument("--compile-from", choices=PHASES, metavar="PHASE", help="the input is already at this phase")
    p.add_argument("--dump-phases", metavar="DIR", help="write the IR after every phase into DIR")
    p.add_argument("--timing", action="store_true", help="print the wall time of each phase to stderr")
    p.add_argument("--demote-f64", action="store_true", help="compute f64 as f32 (IREE's own default)")
    p.add_argument("--opt-level", choices=["O0", "O1", "O2", "O3"], help="IREE's global optimization level")
    p.add_argument("--no-optimize", action="store_true",
                   help="skip oxla-hlo-opt, oxla's StableHLO optimizer that runs before IREE's input phase, the "
                        "target's codegen passes and the legalization choices")
    p.add_argument("--disable-passes", metavar="P1,P2", type=_names, default=[],
                   help="leave out these codegen passes of the target or legalization choices (--list-targets "
                        "names them)")
    p.add_argument("--list-targets", action="store_true", help="list targets and their chips, then exit")
    p.add_argument("--emit-bytecode", action="store_true", help="with --compile-to: write MLIR bytecode")
    p.add_argument("--cache", metavar="DIR",
                   help="keep whole artifacts in DIR and read them back for the same program and options "
                        "(default $OXLA_COMPILE_CACHE when set)")
    p.add_argument("--no-cache", action="store_true", help="compile even when $OXLA_COMPILE_CACHE is set")
    p.add_argument("--tune", action="store_true",
                   help="time a few flag sets on this CPU and keep the fastest (llvm-cpu; the choice is cached)")
    p.add_argument("--tune-cache", metavar="DIR",
                   help="with --tune: the cache directory (default $OXLA_CACHE_DIR, else ~/.cache/oxla/tune)")
    p.add_argument("--retune", action="store_true", help="with --tune: measure again, replacing the cached choice")
    return p


def _names(text: str) -> list[str]:
    """A comma-separated list of names, blanks dropped."""
    return [name.strip() for name in text.split(",") if name.strip()]


def _option_conflict(args) -> str | None:
    """Why the cache or tuning options cannot go with the others, or None."""
    if (args.tune_cache or args.retune) and not args.tune:
        return "--tune-cache and --retune need --tune"
    if args.cache and args.no_cache:
        return "--cache and --no-cache contradict each other"
    partial = [f for f, on in (("--compile-to", args.compile_to), ("--compile-from", args.compile_from),
                               ("--dump-phases", args.dump_phases)) if on]
    if args.tune and partial:
        return f"--tune compiles and times whole programs; it cannot be combined with {', '.join(partial)}"
    if args.cache and (partial or args.tune):
        other = ", ".join(partial or ["--tune (which has --tune-cache)"])
        return f"--cache keeps whole compiles; it cannot be combined with {other}"
    return None


def _compile(module, args, extra: list[str]):
    """compile() or, with --tune, compile_tuned() with the command line's options."""
    from oxla.pipelines import compile

    options = dict(keep_f64=not args.demote_f64, opt_level=args.opt_level, flags=extra, optimize=not args.no_optimize,
                   disable_passes=args.disable_passes)
    if args.tune:
        from oxla.pipelines.tune import compile_tuned

        return compile_tuned(module, args.target, cache_dir=args.tune_cache, retune=args.retune, **options)
    return compile(
        module, args.target, compile_to=args.compile_to, compile_from=args.compile_from,
        hooks=_phase_dumper(args.dump_phases) if args.dump_phases else None,
        cache=False if args.no_cache else args.cache, **options,
    )


def _phase_dumper(directory: str):
    """Hooks that write the module after each phase as DIR/NN-phase.mlir."""
    from oxla import ir
    from oxla.pipelines.phases import PHASES

    os.makedirs(directory, exist_ok=True)

    def writer(index: int, phase: str):
        def dump(module) -> None:
            with open(os.path.join(directory, f"{index:02d}-{phase}.mlir"), "w") as f:
                f.write(ir.to_text(module))

        return dump

    return {f"after:{phase}": writer(i, phase) for i, phase in enumerate(PHASES[:-1])}


def _read_source(path: str):
    """The input as bytes (stdin) or a path (MLIR reads files itself)."""
    if path == "-":
        from oxla import ir

        return ir.parse(sys.stdin.buffer.read(), name="<stdin>")
    if not os.path.exists(path):
        raise FileNotFoundError(path)
    from oxla import ir

    return ir.parse_file(path)


def list_targets() -> int:
    from oxla.pipelines import TARGETS
    from oxla.pipelines.compiler import LEGALIZATION_CHOICES
    from oxla.pipelines.targets import pass_names

    for t in TARGETS.values():
        print(f"{t.name:<14} {t.summary}")
        print(f"{'':<14} chips: {', '.join(t.known_chips)} (default {t.default_chip}); runs on device '{t.driver}'")
        passes = [name for _, pipeline in t.codegen_passes for name in pass_names(pipeline)]
        if passes:
            print(f"{'':<14} codegen passes: {', '.join(passes)}")
    print(f"legalization choices (every target, each where it applies): {', '.join(LEGALIZATION_CHOICES)}")
    return 0


def run(argv: list[str] | None = None) -> int:
    """Runs oxla-compile; returns the exit status."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    stray = [a for a in extra if not a.startswith("--iree-")]
    if stray:
        parser.error(f"unrecognized arguments: {' '.join(stray)}")
    if args.list_targets:
        return list_targets()
    if args.input is None:
        parser.error("an input file is required (or - for stdin)")
    conflict = _option_conflict(args)
    if conflict:
        parser.error(conflict)

    from oxla import ir
    from oxla.errors import OxlaError

    try:
        module = _read_source(args.input)
    except FileNotFoundError:
        print(f"oxla-compile: error: could not open input file '{args.input}': No such file or directory",
              file=sys.stderr)
        return 1
    except OxlaError as exc:
        print(exc, file=sys.stderr)
        return 1
    try:
        result = _compile(module, args, extra)
    except OxlaError as exc:
        print(exc, file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"oxla-compile: error: {exc}", file=sys.stderr)
        return 1
    if isinstance(result, ir.Module):
        data = ir.to_bytecode(result) if args.emit_bytecode else ir.to_text(result).encode()
        _write(args.output, data)
        return 0
    if args.timing:
        if result.from_cache:
            print("served from the cache: nothing compiled", file=sys.stderr)
        else:
            print_timing(result.phase_seconds)
        if getattr(result, "tuning", None) is not None:
            print("\n".join(result.tuning.lines()), file=sys.stderr)
    if args.output is None:
        if sys.stdout.isatty():
            print("oxla-compile: error: refusing to write a .vmfb to a terminal; use -o FILE", file=sys.stderr)
            return 1
        _write(None, result.vmfb)
    else:
        _write(args.output, result.vmfb)
    return 0


def print_timing(seconds: dict[str, float]) -> None:
    """A per-phase wall-time table on stderr, like --mlir-timing."""
    total = sum(seconds.values()) or 1e-9
    lines = ["phase                        wall (s)      %"]
    lines += [f"{name:<26} {t:>10.4f} {100 * t / total:>6.1f}" for name, t in seconds.items()]
    lines.append(f"{'total':<26} {total:>10.4f} {100.0:>6.1f}")
    print("\n".join(lines), file=sys.stderr)


def _write(path: str | None, data: bytes) -> None:
    if path is None or path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        with open(path, "wb") as f:
            f.write(data)


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    from oxla.tools._startup import console_main

    console_main("oxla-compile", run, argv)


if __name__ == "__main__":
    main()
