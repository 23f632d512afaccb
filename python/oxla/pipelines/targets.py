"""Compilation targets as data: one table, one row per target.

A row names the IREE device the module is assigned to, the session flag that
picks the chip (CPU model, Vulkan profile, CUDA SM, AMD GFX), its default,
the chips known to compile with the pinned compiler, and the runtime driver
that runs the result. A row may also carry options that shape its executable
target and the compiler flag sets oxla.compile uses by default, best first.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from oxla.transforms.pipeline_syntax import OpPipeline, parse_pipeline


@dataclass(frozen=True)
class Target:
    """One compilation target."""

    name: str
    device: str  # IREE device alias assigned to the module (hal.device.alias)
    chip_flag: str  # session flag that selects the chip
    default_chip: str
    known_chips: tuple[str, ...]
    driver: str  # oxla.runtime device that runs the result
    keep_f64: bool  # compile f64 as f64 (IREE demotes it to f32 unless told otherwise)
    summary: str
    # Flags that shape the executable target itself: resolved with the chip into the
    # module's #hal.executable.target (IREE reads them once per session, not per compile).
    options: tuple[str, ...] = ()
    # Named compiler flag sets, best first: oxla.compile uses the first, and when IREE fails
    # with it past the input phase (a code-generation limit, not a bad program) the next.
    flag_sets: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # The flag sets for programs with complex values, when they differ (see LLVM_CPU_COMPLEX_FLAG_SETS).
    complex_flag_sets: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Flags with this prefix passed to compile() shape the executable target (ukernels, CPU features):
    # they are resolved into the module's device target with the chip and options.
    executable_flag_prefix: str = ""
    # oxla pipelines run between IREE's phases ("after:<phase>", pipeline) where IREE's own code
    # generation choices are weak; oxla.compile runs them with each flag set, and retries a set that
    # fails without them before falling back to the next.
    codegen_passes: tuple[tuple[str, str], ...] = ()
    # (executable flags, element types): a program whose contractions (CONTRACTIONS) all take operands
    # of these element types is compiled with these flags, unless the caller sets them.
    plain_contractions: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    # Whether device code has 64-bit integers (IREE's SPIR-V for Vulkan does not), which oxla's input
    # legalization may then use (oxla-legalize-top-k's distinct keys, oxla-legalize-fft's words).
    wide_integers: bool = True
    # Whether IREE's own lowering of the fft forms it takes (one f32 axis of power-of-two length) is
    # right here; where not, oxla-legalize-fft takes those forms too. On Vulkan (lavapipe) lengths up to
    # 32 failed to compile and 64 and up computed wrong values; CUDA and ROCm are unmeasured.
    iree_fft: bool = True

    def flag_sets_for(self, has_complex: bool) -> list[tuple[str, tuple[str, ...]]]:
        """The flag sets to try, best first, for a program with or without complex values."""
        return list(self.complex_flag_sets if has_complex and self.complex_flag_sets else self.flag_sets) or [("", ())]

    def codegen_passes_without(self, names) -> tuple[tuple[str, str], ...]:
        """codegen_passes less the pipelines that run a pass in `names`; ValueError for a name it never runs.

        What XLA's --xla_disable_hlo_passes does for its passes: a way to measure
        or work around one of oxla's code-generation rewrites without editing it.
        """
        names = set(names)
        if not names:
            return self.codegen_passes
        known = [n for _, pipeline in self.codegen_passes for n in pass_names(pipeline)]
        unknown = names.difference(known)
        if unknown:
            raise ValueError(f"target {self.name} runs no codegen pass named {', '.join(sorted(unknown))} "
                             f"(its codegen passes: {', '.join(known) or 'none'})")
        return tuple(p for p in self.codegen_passes if not names & set(pass_names(p[1])))

    def flags(self, chip: str | None = None) -> list[str]:
        """The iree-compile flags that select this target and chip."""
        return [
            f"--iree-hal-target-device={self.device}",
            *(["--iree-hal-local-target-device-backends=llvm-cpu"] if self.device == "local" else []),
            f"{self.chip_flag}={chip or self.default_chip}",
            *self.options,
        ]


def pass_names(pipeline: str) -> list[str]:
    """The names of the passes a pipeline string runs, at any nesting, in order."""
    return list(_pass_names(pipeline))


@functools.lru_cache(maxsize=256)
def _pass_names(pipeline: str) -> tuple[str, ...]:
    """pass_names, parsed once per pipeline string (every compile asks for the targets' few)."""
    def names(elements):
        for element in elements:
            if isinstance(element, OpPipeline):
                yield from names(element.elements)
            else:
                yield element.name

    return tuple(names(parse_pipeline(pipeline)))


# llvm-cpu's defaults, measured on the zoo of tools/bench (docs/performance.md, "oxla's
# llvm-cpu defaults"; ratios are latency / XLA's, one thread). IREE's own (O0, no data
# tiling) run the zoo at 2.5x XLA on the host CPU (13x on its default generic one).
LLVM_CPU_OPTIONS = (
    # IREE's 32 KiB limit fails 7 in 10 compiles of the data-tiled transformer block
    # (iree-compile is not deterministic: 32,832 bytes when it fails); 64 KiB, never.
    # Dispatches run on the caller's thread or on task workers with 128 KiB stacks.
    "--iree-llvmcpu-stack-allocation-limit=65536",
)
_LLVM_CPU_O3_DATA_TILING = (
    "--iree-opt-level=O3",  # fuses elementwise chains and reductions: 3.4x -> 1.0-1.4x on those
    "--iree-opt-data-tiling=true",  # packed matmul operands: GEMMs and the MLP 2.5x-4.5x -> 0.9x-1.15x
    # Global optimization at O2 and above folds BERT's head transposes into its
    # matmuls, which then run slower (1.21x instead of 0.92x); O1 keeps the rest of O3.
    "--iree-global-optimization-opt-level=O1",
)
LLVM_CPU_FLAG_SETS = (
    ("o3-data-tiling", _LLVM_CPU_O3_DATA_TILING),
    # Dispatch creation's aggressive fusion (its O2 and up) makes IREE fail on some programs: it
    # rewires the users of a multi-result dispatch region to the wrong results (complex QR, SVD and
    # pinv: "expected operand #0 rank (0)"), or forms dispatches whose stores code generation rejects
    # ("write affecting operations on global resources": programs with a dynamic batch, a complex
    # svdvals). With dispatch creation at O1 they compile, and the rest stays at O3, which
    # "data-tiling" (IREE's O0) gives up. It also miscompiled one program silently, which no
    # fallback can catch: a host loop of complex Gram-Schmidt steps whose second trip went wrong
    # (now oxla-llvmcpu-lapack-kernels' selection kernel; test_lapack_kernels checks its results).
    ("o3-data-tiling-dispatch-o1", _LLVM_CPU_O3_DATA_TILING + ("--iree-dispatch-creation-opt-level=O1",)),
    ("data-tiling", ("--iree-opt-data-tiling=true",)),
    ("iree-defaults", ()),
)
# IREE 3.13's data tiling crashes iree-compile itself (a segfault, which no fallback can catch) on
# complex<f64> contractions, such as a legalized complex triangular_solve: programs with complex
# values compile without it (the sets above but "data-tiling", without that flag).
LLVM_CPU_COMPLEX_FLAG_SETS = tuple(
    (name.replace("-data-tiling", ""), tuple(f for f in flags if f != "--iree-opt-data-tiling=true"))
    for name, flags in LLVM_CPU_FLAG_SETS if name != "data-tiling")


# Ops that are, or that oxla legalizes into, contractions (dot_general).
CONTRACTIONS = ("stablehlo.dot", "stablehlo.dot_general", "stablehlo.convolution", "stablehlo.fft",
                "stablehlo.triangular_solve")
# IREE's default builds every data-tiled matmul with its mmt4d microkernel, whose bitcode LLVM then
# optimizes with the dispatch: 0.12-0.2 s of each compile. For f32 operands IREE's generated code runs
# as fast (f32 GEMM 9.24 -> 9.06 ms, MLP 0.97 -> 0.95 ms, BERT and the transformer block within 1%;
# compile 0.41 -> 0.27 s and 2.12 -> 1.92 s), and faster with oxla-llvmcpu-mmt4d-register-tiles (the
# f32 GEMM 9.71 -> 8.91 ms); for bf16 the microkernel is 3x faster (7.5 vs 23.8 ms), so programs with
# other contractions keep IREE's default. See docs/performance.md.
LLVM_CPU_PLAIN_CONTRACTIONS = (("--iree-llvmcpu-enable-ukernels=none",), ("f32",))


# Loops of the host program (lax.scan, fori_loop, while_loop) compute their counters and index arithmetic
# on the host instead of in dispatches read back every trip, update their carried tensors in place instead
# of copying them whole every trip, and pack loop-invariant matmul operands once; IREE's host program is
# the same for every device, so every target runs these. See oxla/transforms/host_loops.py.
HOST_LOOPS = ("builtin.module(oxla-host-scalar-dispatches,oxla-host-loop-inits,"
              "util.func(canonicalize,loop-invariant-code-motion))")
# Before them, a slice computed from the tensor it updates is written in place by its dispatch where that
# is safe (a fori_loop over the rows of f32[1024,4096] on an AVX2 Zen 3: 5.4 -> 2.7 ms, inputs resident),
# and kept in a buffer of its own where IREE would place it under its producer's reads, which came out
# wrong; see oxla/transforms/update_dispatches.py.
HOST_LOOP_PASSES = (("after:dispatch-creation", "builtin.module(oxla-in-place-slice-updates)"),
                    ("after:flow", HOST_LOOPS))
# A loop step's product of its row of an unchanging input with an unchanging matrix (an RNN's x[t] W) is
# read from one product of every row computed before the loop, instead of a small matmul every trip;
# see oxla/transforms/loop_contractions.py. Before the loop passes that copy bodies.
STEP_CONTRACTIONS = ("before:input", "builtin.module(oxla-hoist-step-contractions)")


LLVM_CPU_CODEGEN_PASSES = (
    # Costly element-wise values that several reductions consume are written once instead of being
    # recomputed in each reduction's dispatch (the zoo's elementwise chain: 9.5 ms -> 3.8 ms, XLA 5.3 ms);
    # see oxla/transforms/materialize.py.
    ("before:input", "builtin.module(func.func(oxla-materialize-shared-elementwise))"),
    # Large bf16 and f32 matmuls run through oxla's AVX-512 dispatch (8x32 register tiles, A read and
    # the result written in place, constant weights packed while compiling) instead of IREE's 16x16
    # microkernel or its packed f32 code, on CPUs that have the instructions (the bf16 GEMM 4.62 -> 4.15
    # ms, XLA 4.23; the f32 one 8.65 -> 8.24 ms, XLA 8.72; the MLP 1.09x and BERT 1.05x faster; results
    # bit for bit the same); NHWC convolutions with constant kernels run through it as implicit matmuls
    # (the ResNet block 2.10 -> 1.83 ms, the stage transition 1.74 -> 1.42 ms; XLA 2.0 and 1.6 ms). On AVX2
    # it takes f32 matmuls with a 6x16 tile (12 accumulators to IREE's 8: on a Zen 3 the MLP 11% and BERT
    # 5% faster) and the convolutions IREE's code runs slowly there, with a 4x16 tile (the stage
    # transition: 1.29x -> 0.92x XLA's time); see oxla/transforms/cpu_kernels.py.
    # 1-D convolutions run as 2-D ones over a unit height, for the passes below and IREE's vectorized
    # code: IREE ran the 1-D form as a generic element by element (a 5-tap kernel over f32[8,1024,128]
    # to 128 features on an AVX-512 Xeon: 88 ms, XLA 9 ms); see oxla/transforms/convolutions.py.
    ("before:input", "builtin.module(oxla-llvmcpu-widen-1d-convolutions)"),
    # Convolutions in other layouts (PyTorch's NCHW) run channels-last between transposes: IREE's
    # channels-first code is far slower (a 3x3 over f32[1,64,56,56] on an AVX-512 Xeon: 110 ms, XLA 1.9
    # ms); see oxla/transforms/convolutions.py.
    ("before:input", "builtin.module(oxla-llvmcpu-channels-last-convolutions)"),
    # Input-dilated (transposed) convolutions run as one convolution per output phase over the undilated
    # input, without the zeros IREE multiplies (a 3x3 stride-2 transposed convolution of f32[1,28,28,128]
    # to 64 features on an AVX2 Zen 3: 6.7 ms -> 2.0 ms, XLA 2.1-2.2 ms, its 2x1 phases unfolded below);
    # before the kernel pass, which may then take the phases. See oxla/transforms/convolutions.py.
    ("before:input", "builtin.module(oxla-llvmcpu-phase-convolutions)"),
    # Grouped convolutions (up to 16 groups of 8 channels or more) run as one convolution per group: IREE
    # runs a grouped one element by element (3x3 over f32[1,28,28,256] on an AVX2 Zen 3: 4 groups 84 ->
    # 5.0 ms, XLA 22 ms; 16 groups 29 -> 1.2 ms, XLA 5.1 ms); see oxla/transforms/convolutions.py.
    ("before:input", "builtin.module(oxla-llvmcpu-split-grouped-convolutions)"),
    # The grouped convolutions the split leaves (more groups, or groups of 2-7 channels) run as a sum
    # over the kernel's taps of products summed over each group's channels, which IREE vectorizes (3x3
    # over f32[1,28,28,256] in 32 groups of 8 on an AVX2 Zen 3: 16-25 -> 1.4 ms, XLA 4.0-4.5 ms; ResNeXt
    # 32x4d's 56x56x128: 21 -> 3.4 ms, XLA 14 ms); see oxla/transforms/convolutions.py.
    ("before:input", "builtin.module(oxla-llvmcpu-grouped-convolution-taps)"),
    # Batched matmuls of tiny matrices (a contraction of 8 or fewer, or of 16 into at most 64 results)
    # run as element-wise products summed: IREE pads each into data tiling's tiles (65536 products of
    # 4x4 by 4x4 on an AVX2 Zen 3: 4.3-4.8 -> 0.46 ms, XLA 0.6 ms); see oxla/transforms/tiny_matmuls.py.
    ("before:input", "builtin.module(oxla-llvmcpu-unroll-tiny-batch-matmuls)"),
    # Slices strided along their innermost dimension (x[:, ::2]) read each group of elements as one word,
    # shifted and truncated: IREE built each vector of the strided read one lane at a time (f32[4096,1024]
    # on an AVX2 Zen 3: 6.2-7.1 -> 4.0 ms, XLA 3.9-5.3 ms); see oxla/transforms/strided_slices.py.
    ("before:input", "builtin.module(oxla-llvmcpu-strided-slice-bitcasts)"),
    # f32 and f64 rounding half to even as |x| + 2^p - 2^p with x's sign: IREE expanded it into bit work
    # around a truncation (`jnp.round(jnp.clip(10 x, -100, 100))` over f32[4096,1024] on an AVX2 Zen 3:
    # 2.61 -> 1.13 ms, XLA 1.32-1.61 ms); see oxla/transforms/rounding.py.
    ("before:input", "builtin.module(oxla-llvmcpu-round-even-arithmetic)"),
    # bf16 and f16 matmuls and convolutions sum in f32 (IREE summed a bf16 convolution's bf16 result in
    # bf16), and take f32 operands on x86-64 CPUs without the type's instructions (the same products):
    # IREE's bf16 microkernel has no other path there (the bf16 GEMM on an AVX2 Zen 3: 3.4 s -> 37 ms,
    # XLA 51 ms; with a bf16 result 3.6 s -> 38-44 ms); see oxla/transforms/cpu_kernels.py.
    ("before:input", "builtin.module(oxla-llvmcpu-widen-half-contractions)"),
    # x @ W^T for one row x and a run-time W [N, K] (PyTorch's Linear layout) runs as W @ x, which IREE
    # does not transpose W for on every call; see oxla/transforms/cpu_kernels.py.
    ("before:input", "builtin.module(oxla-llvmcpu-row-major-gemvs)"),
    # FFTs of f32 power-of-two lengths (64 and up) run as oxla's Stockham stages, as the forms IREE rejects
    # do: IREE ran a bit-reversal gather and a radix-2 pass per factor of two, one element at a time
    # (jnp.fft.fft of c64[64,1024] on an AVX2 Zen 3: 1.19 -> 0.31 ms, XLA 0.18 ms); see
    # oxla/transforms/fft.py.
    ("before:input", "builtin.module(oxla-llvmcpu-staged-fft)"),
    # An RNN step's x[t] W read from one product of every row before the loop (STEP_CONTRACTIONS: a
    # 256-step tanh RNN of batch 4 and width 128 on an AVX2 Zen 3, paired, 1.69 -> 1.43 ms).
    STEP_CONTRACTIONS,
    # Counted loops (lax.scan, fori_loop) of 4 trips or more run four steps a trip, the trips past a
    # multiple of 4 in a loop after them, so IREE's host program pays its per-trip cost a quarter as
    # often (on an AVX2 Zen 3, paired: a scan of c = 0.9 c + x[t] over f32[1024,4096] 6.36 -> 5.13 ms,
    # over f32[1023,4096] 7.51 -> 4.33 ms; a 256-step tanh RNN 2.21 -> 1.79 ms, 255 steps 1.91 -> 1.47
    # ms; 256 decoding steps 9.86 -> 8.60 ms); see oxla/transforms/loop_unroll.py.
    ("before:input", "builtin.module(oxla-unroll-loops)"),
    ("before:input", "builtin.module(oxla-llvmcpu-matmul-kernel)"),
    # NHWC convolutions with 7x1-, 1x7-like kernels the kernel pass left run as one matmul over the input's
    # taps side by side (non-constant kernels on an AVX2 Zen 3: 17x17x192 7x1 65 ms -> 3.0 ms, XLA 2.5-2.7
    # ms; 28x28x64 3x1 9.2 -> 1.0 ms, XLA 0.8-0.9 ms); see oxla/transforms/convolutions.py.
    ("before:input", "builtin.module(oxla-llvmcpu-unfold-strip-convolutions)"),
    # Functions with 1 MiB of results or more get an entry that writes them into the arrays oxla.runtime
    # returns, instead of buffers it copies them out of (through module.main(numpy) on an AVX2 Zen 3:
    # the elementwise chain's 16 MB result 0.81x-0.86x the time, the GEMMs' 4 MB mostly 0.93x-0.98x; the
    # host code is compiled twice, 0.1 s more); see oxla/transforms/result_storage.py.
    ("before:input", "builtin.module(oxla-result-storage-entries)"),
    # Sorts run as bitonic networks of element-wise rounds where a cost model says they beat IREE's
    # bubble sort (jnp.sort on an AVX2 Zen 3: f32[64,1024] 157-325 ms -> 10.2-11.1 ms, XLA 11.5-14.0 ms;
    # f32[16384] 0.6-1.4 s -> 3.3-4.0 ms, XLA 3.7-5.1 ms); see oxla/transforms/sort.py.
    ("before:input", "builtin.module(oxla-llvmcpu-sort-networks)"),
    # argmax and argmin run as the extremum, then the first position holding it: two reductions IREE
    # vectorizes, where it runs the (value, position) reduction one element at a time (jnp.argmax over
    # the rows of f32[256,32000] on an AVX2 Zen 3: 20-22 ms -> 7.5 ms, XLA 14-20 ms); see
    # oxla/transforms/arg_reductions.py.
    ("before:input", "builtin.module(oxla-llvmcpu-split-arg-reductions)"),
    # Reductions over outer dimensions whose results are broadcast back (x - x.max(axis=0), a batch norm's
    # statistics) get dispatches of their own instead of one with their consumers that walks every row
    # twice 128 bytes at a time (x - x.max(axis=0) over f32[4096,1024] on an AVX2 Zen 3: 12-14 ms ->
    # 3.0 ms, XLA 2.8-3.1 ms); see oxla/transforms/outer_reductions.py.
    ("before:input", "builtin.module(oxla-llvmcpu-outer-reduction-dispatches)"),
    # Reductions of a whole tensor to one value run in rows first, so that threads share them (IREE ran
    # them as one workgroup: x.sum() of f32[4096,1024], two threads, 0.47 -> 0.23 ms on an AVX2 Zen 3,
    # XLA 0.29 ms); see oxla/transforms/whole_reductions.py.
    ("before:input", "builtin.module(oxla-llvmcpu-split-whole-reductions)"),
    # Register-wide tiles for reductions over outer dimensions (a column sum: 1.35 ms -> 0.18 ms, XLA
    # 0.24 ms); see oxla/transforms/cpu_tiles.py.
    ("after:global-optimization", "builtin.module(oxla-llvmcpu-outer-reduction-tiles)"),
    # Matrix-vector products (vecmat, matvec, batched ones) of a matrix computed at run time (an argument,
    # a cache) run as reductions instead of packing the matrix for data tiling on every call (on an AVX2
    # Zen 3: f32[1,4096] x f32[4096,4096] 30 ms -> 8.8-11.9 ms, XLA 6.1-7.6 ms; f32[4096,4096] x
    # f32[4096] 22.6 -> 12.1 ms, XLA 5.6-9.8 ms; on an AVX-512 Xeon, 256 decoding steps over caches
    # f32[4,256,128]: 16.1 -> 6.3 ms, XLA 4.2-5.0 ms); see oxla/transforms/cpu_tiles.py.
    ("after:global-optimization", "builtin.module(oxla-llvmcpu-gemv-reductions)"),
    # Host loops as for every target (HOST_LOOPS; on an AVX2 Zen 3, 1024 steps of a scan over f32[4096]:
    # 2.96 s -> 9-11 ms, XLA 5.6-6.6 ms; a 64-step RNN of 8x256: 6.0 -> 2.7-4.0 ms, XLA 2.6-3.4 ms; a
    # fori_loop over the rows of f32[1024,4096]: 6.7 s -> 9.9 ms, XLA 5.2-6.6 ms).
    *HOST_LOOP_PASSES,
    # The words a widening bitcast builds from a binding's elements (the strided slices above) are loaded
    # as the binding's bytes, not assembled element by element (`x[:, ::2] - x[:, 1::2]` of
    # f32[4096,1024] on an AVX2 Zen 3: 1.49 -> 0.89 ms, XLA 1.02 ms; bf16 `x[:, ::2]` 1.88 -> 0.27 ms);
    # see oxla/transforms/strided_slices.py.
    ("after:executable-sources", "builtin.module(oxla-llvmcpu-word-loads)"),
    # Again on the dispatches, for reductions over several outer dimensions that IREE collapses into one
    # after the first run, losing its tiles (a global mean pool of f32[8,7,7,2048] on an AVX2 Zen 3:
    # 0.44 ms -> 0.10 ms, XLA 0.20 ms; f32[4,64,64,256]: 4.6 -> 1.9 ms, XLA 2.5 ms).
    ("after:executable-sources", "builtin.module(oxla-llvmcpu-outer-reduction-tiles)"),
    # Gathers IREE collapsed into one loop (a gather along a middle dimension, `x[b, idx]`) get their
    # loops back, so their rows are read as vectors (on an AVX2 Zen 3, 128 rows of each of the 32 batches
    # of f32[32,512,768]: 9.4 -> 4.1 ms, XLA 2.4 ms; f32[8,56,56,64] padded by a gather over H and W:
    # 7.2 -> 0.73 ms, XLA 0.8-1.3 ms); see oxla/transforms/gathers.py.
    ("after:executable-sources", "builtin.module(oxla-llvmcpu-unflatten-gathers)"),
    # Gathers of rows (an embedding lookup) read their row index inside the body, so MLIR's vectorizer
    # loads each row as vectors instead of one element at a time (4096 rows of f32[32000,512] on an AVX2
    # Zen 3: 5.2-8.8 ms -> 2.1-3.3 ms, XLA 2.6 ms); see oxla/transforms/gathers.py.
    ("after:executable-sources", "builtin.module(oxla-llvmcpu-contiguous-gathers)"),
    # Scatters of rows (x.at[i].add(rows), a segment sum) run as a loop over the update rows that reads
    # and combines each row as one vector; IREE's loop reloaded the index for every element and ran one
    # element at a time (65536 rows of 64 into 1000: 4.5 -> 2.3 ms for the dispatch on an AVX2 Zen 3);
    # see oxla/transforms/scatter.py.
    ("after:executable-sources", "builtin.module(oxla-llvmcpu-vector-scatter-rows)"),
    # Dispatches take buffers on 16-byte boundaries, not IREE's 64, so oxla.runtime reads numpy's
    # arrays in place instead of copying them (the row sum through module.main(numpy): 0.89 ms ->
    # 0.21 ms; resident run times within 2%); see oxla/transforms/bindings.py.
    ("after:stream", "builtin.module(oxla-binding-alignment)"),
    # Which arguments a function's commands may write (IREE sorts, scatters and updates slices in the
    # argument's buffer when nothing reads it later), so oxla.runtime copies those and reads only the
    # others in place; see oxla/transforms/bindings.py.
    ("after:stream", "builtin.module(oxla-argument-writes)"),
    # Vector steps of data-tiling dispatches within native vectors, in place of IREE's 4096-lane ones
    # (chosen differently from run to run) that take LLVM 1-2 s to compile (the transformer block:
    # 3-4 s -> 2 s, run time unchanged); see oxla/transforms/cpu_tiles.py.
    ("after:executable-configurations", "builtin.module(oxla-llvmcpu-pack-vector-tiles)"),
    # A matmul operand packed in a dispatch of its own has each workgroup read whole rows of it (the
    # bf16 GEMM's left operand: 0.30 ms -> 0.10 ms of a 5 ms call; the f32 GEMM's right operand:
    # 0.36 ms -> 0.24-0.27 ms); see oxla/transforms/cpu_tiles.py.
    ("after:executable-configurations", "builtin.module(oxla-llvmcpu-pack-panels)"),
    # Data-tiled f32 matmuls step 8 rows of two column tiles instead of one 16x16 tile: 10 loads per
    # 16 FMAs instead of 17 (the f32 GEMM: 9.2-9.5 ms -> 8.4-8.8 ms, two threads 6.1-6.5 -> 5.0-5.6 ms,
    # XLA 8.1-8.3 and 4.3-4.4 ms; BERT 0.94x-0.95x, the transformer block 0.95x-0.99x); see
    # oxla/transforms/cpu_tiles.py.
    ("after:executable-configurations", "builtin.module(oxla-llvmcpu-mmt4d-register-tiles)"),
    # Workgroups of data-tiled f32 matmuls take as many row tiles as their result block allows, so the
    # right operand streams through the caches fewer times (on an AVX2 Zen 3, its workgroups' 1-2 rows
    # read a 64 MB argument 8-32 times: 64x4096x4096 93 -> 52 ms, 256x4096x4096 296 -> 149 ms, XLA 51
    # and 154 ms); see oxla/transforms/cpu_tiles.py.
    ("after:executable-configurations", "builtin.module(oxla-llvmcpu-mmt4d-row-blocks)"),
    # f32 convolutions IREE steps by part of a vector of features (AVX2: 4 pixels x 4 features) step 4
    # pixels of two vectors instead (the ResNet block's 3x3 convolutions on an AVX2 Zen 3: 10-11 ms ->
    # 2.9-3.2 ms, XLA 3.4 ms); see oxla/transforms/cpu_tiles.py.
    ("after:executable-configurations", "builtin.module(oxla-llvmcpu-conv-register-tiles)"),
    # Reductions over rows step one row of four vectors instead of 8 rows of one, on CPUs under 16 lanes
    # (the row sum on an AVX2 Zen 3: 1.6-1.9 ms -> 0.9-1.1 ms; the elementwise chain's normalisation:
    # the chain 0.95x); see oxla/transforms/cpu_tiles.py.
    ("after:executable-configurations", "builtin.module(oxla-llvmcpu-row-reduction-steps)"),
    # Element-wise dispatches get workgroups of whole rows where IREE cut rows into strips (a bias and
    # relu over f32[4096,512] on an AVX2 Zen 3: 0.82 -> 0.43 ms), else tiles of whole vector steps where
    # IREE's leave a remainder in every row (jax.nn.one_hot of 4096 ids into 1000 classes on an AVX-512
    # Xeon: the dispatch 0.93 -> 0.42 ms); see oxla/transforms/cpu_tiles.py.
    ("after:executable-configurations", "builtin.module(oxla-llvmcpu-whole-vector-workgroups)"),
    # Element-wise dispatches doing math step two vectors instead of one on CPUs under 16 lanes, so that
    # their long dependency chains interleave (gelu over f32[1024,4096] on an AVX2 Zen 3: 6.9-7.6 ms ->
    # 5.4-6.2 ms, the zoo's elementwise chain 0.88x); see oxla/transforms/cpu_tiles.py.
    ("after:executable-configurations", "builtin.module(oxla-llvmcpu-elementwise-steps)"),
    # Element-wise dispatches reading an operand transposed step square blocks of lanes, as IREE steps
    # a plain transpose, instead of one row that reads the operand an element at a time (x + y.T over
    # f32[2048,2048] on an AVX2 Zen 3: 19.5 -> 5.2 ms); see oxla/transforms/cpu_tiles.py.
    ("after:executable-configurations", "builtin.module(oxla-llvmcpu-transpose-steps)"),
    # Sums of element-wise products (a sum of squares) keep their multiplies as FMAs, which IREE's
    # vectorizer does not turn into a vector.contract it lowers one element at a time (the row norms of
    # f32[8192,512] on an AVX2 Zen 3: 2.1-2.5 ms -> 0.73-1.24 ms, XLA 0.95 ms); see
    # oxla/transforms/product_sums.py.
    ("after:executable-configurations", "builtin.module(oxla-llvmcpu-elementwise-product-sums)"),
    # Rows read backwards (x[:, ::-1]) go to LLVM's loop vectorizer, which loads them as vectors and
    # reverses those, where IREE's gathered them an element at a time (f32[4096,1024] on an AVX2 Zen 3:
    # 4.0-4.4 -> 1.75-1.87 ms, XLA 1.3-1.8 ms); see oxla/transforms/reversed_rows.py.
    ("after:executable-configurations", "builtin.module(oxla-llvmcpu-reversed-row-loops)"),
    ("after:executable-targets", "builtin.module(oxla-llvmcpu-vectorize-marked-loops)"),
    # f32 and f64 remainders call an exact fmod of oxla's, defined in their executable: IREE's embedded
    # ELF links no C library and its device library has `fmodf` only (jnp.fmod on float64 failed to link;
    # jnp.fmod of f32[1024,1024] on an AVX2 Zen 3: 42.1 -> 9.8 ms, XLA 40.2 ms); see oxla/transforms/remainders.py.
    ("after:executable-targets", "builtin.module(oxla-llvmcpu-remainders)"),
)


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target(
            "llvm-cpu", "local", "--iree-llvmcpu-target-cpu", "host",
            ("host", "generic", "x86-64-v3", "x86-64-v4", "znver4", "znver5", "skylake-avx512", "neoverse-v2"),
            "local-task", True,
            "native code for this machine's CPU (host features detected); cpu='generic' for any x86-64",
            LLVM_CPU_OPTIONS, LLVM_CPU_FLAG_SETS, LLVM_CPU_COMPLEX_FLAG_SETS, "--iree-llvmcpu-",
            LLVM_CPU_CODEGEN_PASSES, LLVM_CPU_PLAIN_CONTRACTIONS,
        ),
        Target(
            "vulkan-spirv", "vulkan", "--iree-vulkan-target", "vp_android_baseline_2022",
            ("vp_android_baseline_2022", "rdna3", "rdna2", "ampere", "turing", "valhall", "adreno"),
            "vulkan", False,
            "SPIR-V for Vulkan; the default profile runs on Mesa's software device (lavapipe)",
            codegen_passes=(STEP_CONTRACTIONS, *HOST_LOOP_PASSES), wide_integers=False, iree_fft=False,
        ),
        Target(
            "cuda", "cuda", "--iree-cuda-target", "sm_80",
            ("sm_80", "sm_86", "sm_87", "sm_89"),
            "cuda", True,
            "PTX for NVIDIA GPUs; the pinned compiler has no sm_90 target, so for Hopper use sm_89, "
            "whose PTX the driver compiles for the device",
            codegen_passes=(STEP_CONTRACTIONS, *HOST_LOOP_PASSES),
        ),
        Target(
            "rocm", "hip", "--iree-rocm-target", "gfx942",
            ("gfx90a", "gfx942", "gfx1100"),
            "hip", True,
            "AMDGPU code for ROCm/HIP (MI250 gfx90a, MI300 gfx942, RDNA3 gfx1100)",
            codegen_passes=(STEP_CONTRACTIONS, *HOST_LOOP_PASSES),
        ),
    )
}


def resolve(spec: str) -> tuple[Target, str | None]:
    """Parses 'name' or 'name:chip' into a Target and the chip (None: its default)."""
    name, _, chip = spec.partition(":")
    target = TARGETS.get(name)
    if target is None:
        raise ValueError(f"unknown target '{name}'; targets are: {', '.join(TARGETS)}")
    return target, chip or None
