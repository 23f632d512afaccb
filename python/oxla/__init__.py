"""oxla: a Python-native ML compiler stack on StableHLO, MLIR and IREE.

Layers, each importing only those before it:
    oxla.ir           the MLIR bindings, the one context, parse/print/verify
    oxla.transforms   Python passes, the pass registry, mixed pipelines
    oxla.pipelines    IREE's phases to a .vmfb for llvm-cpu, vulkan-spirv, cuda, rocm
    oxla.runtime      devices, loaded modules, calls with numpy arrays (no compiler needed)
    oxla.tools        console programs (oxla-opt, oxla-compile, oxla-run)
    oxla.dialects.stablehlo   op classes and builders for StableHLO
    oxla.builder      programs written as numpy-style Python; jit

`oxla.compile` is `oxla.pipelines.compile`, and `oxla.jit`, `oxla.Program`
and `oxla.Tensor` come from `oxla.builder`, `oxla.compile_model` from
`oxla.importers`; each is imported on first use so
that `import oxla.runtime` never loads the compiler.
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    if name == "compile":
        from oxla.pipelines import compile

        return compile
    if name == "compile_model":
        from oxla.importers import compile_model

        return compile_model
    if name in ("jit", "Program", "Tensor"):
        import oxla.builder

        return getattr(oxla.builder, name)
    raise AttributeError(f"module 'oxla' has no attribute '{name}'")
