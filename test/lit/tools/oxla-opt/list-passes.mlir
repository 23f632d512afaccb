// --list-passes lists the Python passes with their options, then the native
// MLIR/IREE passes, each with its one-line summary; it reads no input.
// RUN: oxla-opt --list-passes | FileCheck %s
// RUN: oxla-opt --list-passes %t.does-not-exist.mlir | FileCheck %s
// RUN: oxla-opt --list-passes | FileCheck %s --check-prefix=ORDER

// CHECK:      Python passes (oxla):
// CHECK-NEXT:   --oxla-argument-writes{{ +}}- Records in each public function's reflection which arguments its commands may write (after `stream`).
// CHECK-NEXT:   --oxla-binding-alignment{{ +}}- Lets CPU dispatches take buffers aligned to `alignment` bytes (not 64), and records that for oxla.runtime.
// CHECK-NEXT:       alignment=<int> (default 16) - the byte boundary buffers may start on (a power of two; 16: what numpy's arrays get)
// CHECK-NEXT:   --oxla-canonicalize-scatter{{ +}}- Rewrites stablehlo.scatter into the [batch, index] / [batch, window...] form IREE lowers.
// CHECK-NEXT:   --oxla-clamp-gather-indices{{ +}}- Clamps gather start indices into the operand, as StableHLO's gather does and IREE's lowering does not.
// CHECK-NEXT:   --oxla-dce{{ +}}- Removes unused side-effect-free ops, unused results of multi-result ops and unreferenced private functions.
// CHECK-NEXT:       functions=<bool> (default true)
// CHECK-NEXT:       results=<bool> (default true) - also drop unused results of reduce, reduce_window, sort, while, if and case
// CHECK-NEXT:   --oxla-device-indexed-slices{{ +}}- Rewrites dynamic slices and updates at device-computed indices inside loops as gathers and scatters.
// CHECK-NEXT:   --oxla-drop-identity-bitcasts{{ +}}- Removes stablehlo.bitcast_convert ops whose result type is their operand's (IREE crashes on complex ones).
// CHECK-NEXT:   --oxla-expand-math{{ +}}- Expands sin, cos, tan, atan2, tanh, cbrt, pow, expm1, log1p (and complex exp, log...) into libm-free f64 math.
// CHECK-NEXT:       backends=<list> (default llvm-cpu)
// CHECK-NEXT:       ops=<list> (default )
// CHECK-NEXT:       decompose-chlo=<bool> (default true)
// CHECK-NEXT:   --oxla-fold-constants{{ +}}- Evaluates pure StableHLO ops whose operands are all constants and replaces them by constants.
// CHECK-NEXT:       max-elements=<int> (default 1000000) - never create constants holding more elements than this (per folded op)
// CHECK-NEXT:   --oxla-guard-scatter-indices{{ +}}- Keeps scatter updates whose window falls outside the operand from being written (XLA drops them).
// CHECK-NEXT:   --oxla-hlo-opt{{ +}}- Simplifies, folds, canonicalizes, CSEs and DCEs StableHLO, round after round, until nothing changes.
// CHECK-NEXT:       max-iterations=<int> (default 8) - the most rounds to run
// CHECK-NEXT:       fast-math=<bool> (default false) - also apply simplifications that change NaN, infinity, -0.0 or rounding results
// CHECK-NEXT:   --oxla-hoist-step-contractions{{ +}}- Computes each loop step's product of its input row with a fixed matrix as one product before the loop.
// CHECK-NEXT:   --oxla-host-loop-inits{{ +}}- Lets host loops update their carried tensors in place: constant starts placed, argument starts consumed.
// CHECK-NEXT:   --oxla-host-scalar-dispatches{{ +}}- Computes on the host the scalar dispatches host loops ran and read back every trip.
// CHECK-NEXT:   --oxla-in-place-slice-updates{{ +}}- Writes slices computed from the tensor they update in place where safe; keeps IREE from it where not.
// CHECK-NEXT:   --oxla-isolate-narrowed-matmul-operands{{ +}}- Puts an optimization barrier on dot_general operands narrowed from f64 (IREE's data tiling miscompiles them).
// CHECK-NEXT:   --oxla-legalize-bf16-converts{{ +}}- Converts integers and booleans to bf16 through f32 (IREE's direct conversion does not link).
// CHECK-NEXT:   --oxla-legalize-cholesky{{ +}}- Rewrites stablehlo.cholesky (which IREE does not lower) as a loop over the factor's columns.
// CHECK-NEXT:   --oxla-legalize-fft{{ +}}- Rewrites stablehlo.fft forms IREE rejects (several dims, lengths not a power of two, f64) as stages or DFT matmuls.
// CHECK-NEXT:       i64-words=<bool> (default true) - write f32 results as i64 words of their parts (false for devices without 64-bit integers)
// CHECK-NEXT:       iree-forms=<bool> (default false) - rewrite the forms IREE lowers itself too (true where its lowering is wrong: Vulkan)
// CHECK-NEXT:       cpu-kernels=<bool> (default true) - run each axis's stages as one dispatch where every device target is llvm-cpu
// CHECK-NEXT:   --oxla-legalize-lapack-calls{{ +}}- Rewrites JAX's LAPACK calls (trsm, potrf, getrf, geqrf, orgqr/ungqr, gehrd, syevd, heevd, gesdd) as StableHLO.
// CHECK-NEXT:   --oxla-legalize-select-and-scatter{{ +}}- Rewrites stablehlo.select_and_scatter (which IREE does not lower) as reduce_window + scatter.
// CHECK-NEXT:   --oxla-legalize-sort-constants{{ +}}- Passes the dense constant operands of each stablehlo.sort through an optimization_barrier.
// CHECK-NEXT:   --oxla-legalize-stable-sorts{{ +}}- Orders equal elements of stable sorts by position (IREE's sort is not stable).
// CHECK-NEXT:   --oxla-legalize-top-k{{ +}}- Rewrites top_k to rank NaN and equal values as XLA does: a top-k over distinct keys, or a sort.
// CHECK-NEXT:       distinct-keys=<bool> (default true) - go through i64 keys (false for devices without 64-bit integers: chlo.top_k becomes a sort, composites stay IREE's)
// CHECK-NEXT:   --oxla-legalize-triangular-solve{{ +}}- Rewrites stablehlo.triangular_solve (which IREE does not lower) as substitution in a stablehlo.while.
// CHECK-NEXT:   --oxla-legalize-unsigned{{ +}}- Rewrites ops on unsigned integers that IREE rejects (reverse, padded reduce_window) into forms it lowers.
// CHECK-NEXT:   --oxla-llvmcpu-channels-last-convolutions{{ +}}- Runs convolutions of other layouts (NCHW) as channels-last ones between transposes.
// CHECK-NEXT:   --oxla-llvmcpu-contiguous-gathers{{ +}}- Reads gather indices that do not vary along a vector inside the body, so rows load as vectors.
// CHECK-NEXT:   --oxla-llvmcpu-conv-register-tiles{{ +}}- Steps f32 convolutions by whole vectors of output features where IREE steps parts of one (AVX2).
// CHECK-NEXT:   --oxla-llvmcpu-elementwise-product-sums{{ +}}- Writes the products a reduction sums as FMAs, which IREE's CPU vectorizer keeps as vectors.
// CHECK-NEXT:   --oxla-llvmcpu-elementwise-steps{{ +}}- Steps element-wise dispatches two vectors at a time, gathers four, on CPUs under 16 lanes (AVX2).
// CHECK-NEXT:   --oxla-llvmcpu-gemv-reductions{{ +}}- Runs matrix-vector products of a run-time matrix as reductions, without data tiling's pack.
// CHECK-NEXT:   --oxla-llvmcpu-grouped-convolution-taps{{ +}}- Runs the grouped convolutions the split leaves as one channel reduction per kernel tap, which IREE vectorizes.
// CHECK-NEXT:   --oxla-llvmcpu-lapack-kernels{{ +}}- Runs potrf, getrf, geqrf, orgqr, trsm, syevd, gesdd, stablehlo.cholesky and triangular_solve of f32 matrices, and potrf, getrf, geqrf, ungqr, trsm, heevd, gesdd, stablehlo.cholesky and triangular_solve of complex<f32> ones, as one CPU dispatch each (an SVD with vectors a few).
// CHECK-NEXT:   --oxla-llvmcpu-matmul-kernel{{ +}}- Runs large matmuls and NHWC convolutions through oxla's own dispatch (AVX-512: 8x32 tiles; AVX2: 6x16, 4x16).
// CHECK-NEXT:       min-multiply-adds=<int> (default 8388608) - leave smaller matmuls to IREE, whose dispatches fuse their producers and consumers
// CHECK-NEXT:   --oxla-llvmcpu-mmt4d-register-tiles{{ +}}- Steps data-tiled f32 matmuls through 8 rows of two column tiles (10 loads per 16 FMAs, not 17).
// CHECK-NEXT:   --oxla-llvmcpu-mmt4d-row-blocks{{ +}}- Gives f32 matmul workgroups over a large right operand more row tiles, so it streams from memory fewer times.
// CHECK-NEXT:   --oxla-llvmcpu-outer-reduction-dispatches{{ +}}- Gives reductions over outer dimensions whose results are broadcast back dispatches of their own.
// CHECK-NEXT:       min-elements=<int> (default 65536)
// CHECK-NEXT:   --oxla-llvmcpu-outer-reduction-tiles{{ +}}- Gives reductions over outer dimensions register-wide CPU tiles (IREE's default reads 128 bytes per row).
// CHECK-NEXT:   --oxla-llvmcpu-pack-panels{{ +}}- Gives each workgroup of a stand-alone matmul-operand pack whole rows of its source (bf16: 3x faster than IREE's blocks).
// CHECK-NEXT:       min-workgroups=<int> (default 4) - leave packs that would get fewer workgroups than this to IREE (too few to share)
// CHECK-NEXT:   --oxla-llvmcpu-pack-vector-tiles{{ +}}- Keeps the vector steps of data-tiling dispatches within native vectors (4096-lane ones compile for seconds).
// CHECK-NEXT:   --oxla-llvmcpu-phase-convolutions{{ +}}- Runs input-dilated (transposed) convolutions as one convolution per output phase, without the zeros.
// CHECK-NEXT:   --oxla-llvmcpu-remainders{{ +}}- Makes f32 and f64 llvm.frem ops call an exact fmod of integer operations defined in their executable.
// CHECK-NEXT:   --oxla-llvmcpu-reversed-row-loops{{ +}}- Leaves dispatches that read rows backwards to LLVM's loop vectorizer: scalar innermost steps, marked.
// CHECK-NEXT:   --oxla-llvmcpu-round-even-arithmetic{{ +}}- Rounds f32 and f64 half to even by adding and subtracting 2^p instead of IREE's work on the bits.
// CHECK-NEXT:   --oxla-llvmcpu-row-major-gemvs{{ +}}- Computes x @ W^T for one row x and a run-time W [N, K] as W @ x, which IREE does not transpose W for.
// CHECK-NEXT:   --oxla-llvmcpu-row-reduction-steps{{ +}}- Steps row reductions one row of four vectors at a time on CPUs under 16 lanes (AVX2).
// CHECK-NEXT:   --oxla-llvmcpu-scalar-loops{{ +}}- Runs while loops that move single elements of small arrays (an LU's pivots to a permutation) as one CPU dispatch.
// CHECK-NEXT:   --oxla-llvmcpu-sort-networks{{ +}}- Runs stablehlo.sorts as bitonic networks of element-wise rounds where they beat IREE's bubble sort.
// CHECK-NEXT:       always=<bool> (default false) - rewrite every sort the network can take, whether or not the cost model favours it
// CHECK-NEXT:   --oxla-llvmcpu-split-arg-reductions{{ +}}- Runs argmax and argmin reductions as the extremum, then the first position holding it.
// CHECK-NEXT:   --oxla-llvmcpu-split-grouped-convolutions{{ +}}- Runs grouped convolutions as one ordinary convolution per group, which IREE vectorizes (it does not the grouped one).
// CHECK-NEXT:   --oxla-llvmcpu-split-whole-reductions{{ +}}- Reduces a whole tensor to one value through partial results of its rows, which threads share.
// CHECK-NEXT:       min-elements=<int> (default 262144)
// CHECK-NEXT:   --oxla-llvmcpu-staged-fft{{ +}}- Runs the stablehlo.fft forms IREE lowers (one f32 axis, a power of two) as Stockham stages, not radix-2 passes.
// CHECK-NEXT:       cpu-kernels=<bool> (default true) - run each axis's stages as one dispatch (this pass runs on llvm-cpu targets only)
// CHECK-NEXT:   --oxla-llvmcpu-strided-slice-bitcasts{{ +}}- Reads slices strided along their innermost dimension as words of a group of elements each.
// CHECK-NEXT:   --oxla-llvmcpu-transpose-steps{{ +}}- Steps element-wise dispatches that read an operand transposed by square blocks, as IREE steps a transpose.
// CHECK-NEXT:   --oxla-llvmcpu-unflatten-gathers{{ +}}- Gives gathers IREE collapsed into one loop their loops back, so their rows load as vectors.
// CHECK-NEXT:   --oxla-llvmcpu-unfold-strip-convolutions{{ +}}- Runs NHWC convolutions with 7x1, 1x7-like kernels as a matmul over the input's taps side by side.
// CHECK-NEXT:   --oxla-llvmcpu-unroll-tiny-batch-matmuls{{ +}}- Writes batched matmuls of tiny matrices as element-wise products summed (IREE pads them into tiles).
// CHECK-NEXT:   --oxla-llvmcpu-vector-scatter-rows{{ +}}- Runs row scatters (a scatter-add of rows, a segment sum) as a loop that reads each row as vectors.
// CHECK-NEXT:   --oxla-llvmcpu-vectorize-marked-loops{{ +}}- Asks LLVM to vectorize the innermost loops of the functions oxla-llvmcpu-reversed-row-loops marked.
// CHECK-NEXT:   --oxla-llvmcpu-whole-vector-workgroups{{ +}}- Gives element-wise dispatches workgroups of whole rows, or at least whole vector steps.
// CHECK-NEXT:   --oxla-llvmcpu-widen-1d-convolutions{{ +}}- Runs 1-D convolutions as 2-D ones over a unit height, which IREE vectorizes.
// CHECK-NEXT:   --oxla-llvmcpu-widen-half-contractions{{ +}}- bf16 and f16 matmuls and convolutions sum in f32, over f32 operands where the x86-64 CPU lacks the type's.
// CHECK-NEXT:   --oxla-llvmcpu-word-loads{{ +}}- Loads the words a widening bitcast builds from a binding's elements as the binding's bytes.
// CHECK-NEXT:   --oxla-materialize-shared-elementwise{{ +}}- Computes costly element-wise values once (optimization_barrier) when several reductions would recompute them.
// CHECK-NEXT:       min-elements=<int> (default 16384)
// CHECK-NEXT:   --oxla-pad-complex-windows{{ +}}- Pads the inputs of complex reduce_windows with padding explicitly (IREE crashed on the window's).
// CHECK-NEXT:   --oxla-print-op-stats{{ +}}- Prints the number of ops per dialect and per op name (to stderr, or appended to `output`).
// CHECK-NEXT:       json=<bool> (default false)
// CHECK-NEXT:       output=<str> (default -)
// CHECK-NEXT:   --oxla-result-storage-entries{{ +}}- Adds to each public function with large static results an entry that writes them into caller storage.
// CHECK-NEXT:       min-bytes=<int> (default 1048576) - functions whose results are smaller in all keep copying them out
// CHECK-NEXT:   --oxla-scatter-slice-updates{{ +}}- Rewrites a scatter of one window into one operand as a slice update, in place and in any layout.
// CHECK-NEXT:   --oxla-simplify-stablehlo{{ +}}- Applies XLA-style algebraic simplifications to StableHLO (exact ones; fast-math adds the relaxed ones).
// CHECK-NEXT:       fast-math=<bool> (default false) - also apply rules that change NaN, infinity, -0.0 or rounding results
// CHECK-NEXT:       strict=<bool> (default false) - raise instead of declining when a rule fails on an op (for testing rules)
// CHECK-NEXT:       only=<list> (default ) - apply only these rules (by name)
// CHECK-NEXT:   --oxla-split-complex-constants{{ +}}- Rewrites complex<f64> constants as stablehlo.complex of two f64 constants (IREE crashes on them).
// CHECK-NEXT:   --oxla-split-complex-pads{{ +}}- Pads complex tensors as their real and imaginary parts (IREE rejects or crashes on complex fills).
// CHECK-NEXT:   --oxla-split-complex-selects{{ +}}- Selects complex values by their real and imaginary parts (IREE's SPIR-V code has no complex select).
// CHECK-NEXT:   --oxla-strip-locations{{ +}}- Replaces the locations of all ops and block arguments with unknown locations.
// CHECK-NEXT:   --oxla-unread-carried-values{{ +}}- Lets the body of each while loop read every value it carries (IREE crashes on loops whose body does not).
// CHECK-NEXT:   --oxla-unroll-loops{{ +}}- Copies the body of counted loops several times into each trip, so the host runs fewer trips.
// CHECK-NEXT:       factor=<int> (default 4) - trips of the original loop per trip
// CHECK-NEXT:       small-factor=<int> (default 8) - trips of the original loop per trip for bodies of at most small-body-ops ops
// CHECK-NEXT:       small-body-ops=<int> (default 96) - the most ops (with the functions they call) of a body that runs small-factor steps a trip
// CHECK-NEXT:       max-body-ops=<int> (default 192) - leave loops whose bodies (with the functions they call) hold more ops alone
// CHECK-NEXT:   --oxla-vm-distinct-branch-refs{{ +}}- Gives each repeated ref operand of a VM branch a value of its own (an IREE encoder bug nulls one).
// CHECK-NEXT: Native passes (MLIR/IREE):
// CHECK-DAG:    --canonicalize{{ +}}- Canonicalize operations
// CHECK-DAG:    --cse{{ +}}- Eliminate common sub-expressions
// CHECK-DAG:    --inline{{ +}}- Inline function calls
// CHECK-DAG:    --symbol-dce{{ +}}- Eliminate dead symbols
// CHECK-DAG:    --chlo-legalize-to-stablehlo{{ +}}- Legalizes from CHLO ops
// CHECK-DAG:    --convert-func-to-spirv{{ +}}- Convert Func dialect to SPIR-V dialect
// CHECK-DAG:    --iree-stablehlo-verify-compiler-input-legality{{ +}}- Verifies that only supported IR constructs are passed to the compiler

// Python passes come first, and appear once.
// ORDER:     Python passes
// ORDER:     Native passes
// ORDER-NOT: --oxla-
