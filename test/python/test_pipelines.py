"""oxla.compile: phases in one process, hooks between them, targets as data."""

import os
import re
import subprocess
import sys
import warnings

import ml_dtypes
import numpy as np
import pytest

import oxla
from oxla import ir
from oxla.pipelines import PHASES, TARGETS, Artifact, CompileError, compile, signatures

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MLP = os.path.join(ROOT, "examples", "mlp.mlir")
ADD = """func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


@pytest.fixture(scope="module")
def mlp_artifact():
    return compile(MLP)


def test_artifact_describes_itself(mlp_artifact, tmp_path):
    art = mlp_artifact
    assert isinstance(art, Artifact) and oxla.compile is compile
    assert b"IREE" in art.vmfb[:128]  # the VM flatbuffer identifier
    assert art.target.name == "llvm-cpu" and art.chip == "host" and art.driver == "local-task"
    assert "--iree-hal-target-device=local" in art.flags and "--iree-llvmcpu-target-cpu=host" in art.flags
    assert str(art.signatures["main"]) == (
        "@main(tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x3xf32>, tensor<3xf32>)"
        " -> (tensor<4x3xf32>)")
    assert list(art.phase_seconds) == ["oxla-hlo-opt", *PHASES[1:]] and art.optimized
    assert all(t >= 0 for t in art.phase_seconds.values())
    art.save(tmp_path / "mlp.vmfb")
    assert (tmp_path / "mlp.vmfb").read_bytes() == art.vmfb


def test_sources_text_bytes_module_and_path():
    module = ir.parse(ADD)
    before = ir.to_text(module)
    for source in (ADD, ADD.encode(), module, ir.to_bytecode(module)):
        assert "add" in compile(source).signatures
    assert ir.to_text(module) == before  # the caller's module is not rewritten


def test_compile_to_and_resume_from_a_phase():
    flow = compile(ADD, compile_to="flow")
    assert isinstance(flow, ir.Module)
    text = ir.to_text(flow)
    assert "flow.dispatch" in text and "stablehlo.add" not in text
    art = compile(flow, compile_from="flow")
    assert art.signatures["add"].inputs == ("tensor<4xf32>", "tensor<4xf32>")
    assert list(art.phase_seconds)[0] == "stream"


def test_hooks_run_between_phases_in_one_context():
    seen = []

    def inspect(module):
        seen.append(sorted({op.name.split(".")[0] for op in ir.ops(module)}))
        assert module.context is ir.context()

    compile(ADD, hooks={"after:flow": [inspect], "before:hal": inspect, "after:start": "oxla-dce"})
    assert "flow" in seen[0] and "stablehlo" not in seen[0]
    assert "stream" in seen[1] or "hal" in seen[1]


def test_a_hook_can_rewrite_the_program():
    double = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = stablehlo.multiply %0, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
    ops_at_flow = []
    compile(double, hooks={"before:input": "oxla-dce",
                           "after:input": lambda m: ops_at_flow.extend(op.name for op in ir.ops(m))})
    assert not any("mul" in name for name in ops_at_flow)


@pytest.mark.parametrize("target", ["vulkan-spirv", "cuda", "cuda:sm_89", "rocm", "rocm:gfx90a", "llvm-cpu:generic"])
def test_every_target_compiles(target):
    art = compile(ADD, target)
    name, _, chip = target.partition(":")
    assert art.target is TARGETS[name] and art.chip == (chip or TARGETS[name].default_chip)
    assert b"IREE" in art.vmfb[:128]


def test_hopper_is_rejected_by_the_pinned_compiler_as_documented():
    with pytest.raises(CompileError, match="missing GPU target") as info:
        compile(ADD, "cuda:sm_90")
    assert info.value.phase == "executable-configurations"


def test_flags_do_not_leak_between_compiles():
    generic = compile(ADD, "llvm-cpu", cpu="generic")
    host = compile(ADD)
    assert "--iree-llvmcpu-target-cpu=generic" in generic.flags
    assert "--iree-llvmcpu-target-cpu=host" in host.flags
    flow_generic = ir.to_text(compile(ADD, "llvm-cpu:generic", compile_to="executable-sources"))
    assert 'cpu = "generic"' in flow_generic


def test_unlowerable_op_names_op_location_and_phase():
    src = ('func.func @f(%t: !stablehlo.token) -> tensor<4xf32> {\n'
           '  %0:2 = "stablehlo.infeed"(%t) {infeed_config = "", layout = [[0]]} '
           ': (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)\n'
           '  return %0#0 : tensor<4xf32>\n}\n')
    with pytest.raises(CompileError) as info:
        compile(ir.parse(src, name="ts.mlir"))
    err = info.value
    assert err.phase == "input"
    assert str(err).startswith("compilation failed in phase 'input':\nts.mlir:2:10: error: failed to legalize "
                               "operation 'stablehlo.infeed'")
    assert "see current operation" not in str(err)


# Six dispatches IREE translates in parallel, each configured to vectorize its whole tensor at once,
# which IREE rejects: the errors are reported on the compiler's worker threads.
_PARALLEL_FAILURES = """
import sys
from oxla import ir
from oxla.pipelines import CompileError, compile

sizes = [16384 + 64 * i for i in range(6)]  # past IREE's limit of 512 native vectors with AVX-512 too
args = ", ".join(f"%x{i}: tensor<{n}xf32>" for i, n in enumerate(sizes))
types = ", ".join(f"tensor<{n}xf32>" for n in sizes)
body = "".join(f"  %e{i} = stablehlo.exponential %x{i} : tensor<{n}xf32>\\n" for i, n in enumerate(sizes))
results = ", ".join(f"%e{i}" for i in range(len(sizes)))
src = f"func.func @main({args}) -> ({types}) {{\\n{body}  return {results} : {types}\\n}}\\n"


def whole_tensor_steps(module):
    def visit(op):
        if op.name == "linalg.generic" and "lowering_config" in op.attributes:
            n = op.results[0].type.shape[0]
            op.attributes["lowering_config"] = ir.Attribute.parse(
                f"#iree_cpu.lowering_config<distribution = [{n}], vector_common_parallel = [{n}]>", context=ir.context())
    ir.walk(module, visit)


for attempt in range(3):
    try:
        compile(src, optimize=False, hooks={"after:executable-configurations": whole_tensor_steps})
        sys.exit("compiled")
    except CompileError as exc:
        assert exc.phase == "executable-targets" and "large vector sizes" in str(exc), str(exc)
print("raised")
"""


def test_errors_reported_on_compiler_worker_threads_raise_instead_of_hanging():
    # MLIR reports them on whichever thread runs the failing pass; with a Python handler that needed the GIL
    # the caller held, the compile deadlocked (about two runs in three). A child process bounds the wait.
    done = subprocess.run([sys.executable, "-c", _PARALLEL_FAILURES], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "raised", done.stdout + done.stderr


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"target": "tpu"}, "unknown target 'tpu'; targets are: llvm-cpu, vulkan-spirv, cuda, rocm"),
        ({"compile_to": "lowering"}, "unknown phase 'lowering'"),
        ({"compile_to": "flow", "compile_from": "stream"}, "is not after"),
        ({"flags": ["--iree-hal-target-device=cuda"]}, "is set by target="),
        ({"flags": ["--iree-no-such-flag"]}, "invalid compiler flag"),
        ({"hooks": {"during:flow": "cse"}}, "must be 'before:<phase>' or 'after:<phase>'"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        compile(ADD, **kwargs)


def test_signatures_of_a_stablehlo_module():
    sigs = signatures(ir.parse(ADD + "func.func private @hidden() { return }\n"))
    assert list(sigs) == ["add"] and sigs["add"].outputs == ("tensor<4xf32>",)


def test_f64_kept_or_demoted_per_compile():
    src = ADD.replace("f32", "f64")

    def types_after_input(keep):
        return ir.to_text(compile(src, keep_f64=keep, compile_to="input"))

    assert "f64" in types_after_input(True)
    assert "f64" not in types_after_input(False)
    assert "f64" in types_after_input(True)


def test_a_failure_past_the_input_phase_retries_with_the_next_flag_set(monkeypatch):
    from oxla.pipelines import compiler as compiler_module

    real = compiler_module._Compiler.run_phases
    seen = []

    def fail_first_set(self, module, start, stop, hooks, times):
        seen.append(sum(len(listed) for listed in hooks.values()))
        if len(seen) <= 4:
            raise CompileError("dispatch-creation", [])
        return real(self, module, start, stop, hooks, times)

    monkeypatch.setattr(compiler_module._Compiler, "run_phases", fail_first_set)
    with warnings.catch_warnings():
        warnings.simplefilter("error", compiler_module.CodegenPassesWarning)  # the flags failed, not the passes
        artifact = compile(MLP)
    # Each failing set with oxla's codegen passes, then without them; then the third set with them.
    passes = len(TARGETS["llvm-cpu"].codegen_passes)
    assert seen == [passes, 0, passes, 0, passes]
    assert artifact.flag_set == TARGETS["llvm-cpu"].flag_sets[2][0] and len(artifact.codegen_passes) == passes
    # The third set's flags replace the earlier sets' (O3 and dispatch creation's O1 are gone).
    assert "--iree-opt-level=O3" not in artifact.flags and "--iree-opt-data-tiling=true" in artifact.flags
    assert not any(f.startswith("--iree-dispatch-creation-opt-level") for f in artifact.flags)


def test_a_failure_only_with_the_codegen_passes_compiles_without_them_and_warns(monkeypatch):
    from oxla.pipelines import compiler as compiler_module

    real = compiler_module._Compiler.run_phases

    def fail_with_passes(self, module, start, stop, hooks, times):
        if any(hooks.values()):
            raise CompileError("executable-targets", [])
        return real(self, module, start, stop, hooks, times)

    monkeypatch.setattr(compiler_module._Compiler, "run_phases", fail_with_passes)
    with pytest.warns(compiler_module.CodegenPassesWarning, match="phase 'executable-targets'.*runs slower"):
        artifact = compile(MLP)
    assert artifact.flag_set == TARGETS["llvm-cpu"].flag_sets[0][0] and artifact.codegen_passes == ()


def test_codegen_passes_run_with_the_first_flag_set_unless_optimize_is_off():
    artifact = compile(MLP)
    assert artifact.codegen_passes == tuple(p for _, p in TARGETS["llvm-cpu"].codegen_passes)
    assert compile(MLP, optimize=False).codegen_passes == ()


def test_disabled_codegen_passes_are_left_out_and_unknown_names_rejected():
    full = tuple(p for _, p in TARGETS["llvm-cpu"].codegen_passes)
    artifact = compile(MLP, disable_passes=["oxla-binding-alignment", "oxla-llvmcpu-pack-panels"])
    assert artifact.codegen_passes == tuple(p for p in full if "binding-alignment" not in p
                                            and "pack-panels" not in p)
    assert len(artifact.codegen_passes) == len(full) - 2
    # Without oxla-binding-alignment, IREE's own 64-byte binding alignment comes back.
    def alignments(**options):
        return set(re.findall(r"stream\.alignment = (\d+)", ir.to_text(compile(MLP, compile_to="stream", **options))))

    assert alignments() == {"16"}
    assert alignments(disable_passes=["oxla-binding-alignment"]) == {"64"}
    with pytest.raises(ValueError, match="runs no codegen pass named oxla-no-such-pass .*oxla-binding-alignment"):
        compile(ADD, disable_passes=["oxla-no-such-pass"])
    with pytest.raises(ValueError, match="target cuda runs no codegen pass named oxla-binding-alignment"):
        compile(ADD, target="cuda", disable_passes=["oxla-binding-alignment"])
    assert TARGETS["llvm-cpu"].codegen_passes_without([]) == TARGETS["llvm-cpu"].codegen_passes


def test_a_failure_in_the_input_phase_is_not_retried_with_other_flag_sets(monkeypatch):
    from oxla.pipelines import compiler as compiler_module

    calls = []

    def fail(self, module, start, stop, hooks, times):
        calls.append(1)
        raise CompileError("input", [])

    monkeypatch.setattr(compiler_module._Compiler, "run_phases", fail)
    with pytest.raises(CompileError, match="phase 'input'"):
        compile(MLP)
    assert len(calls) == 2  # once more without the codegen passes, never with other flag sets
    calls.clear()
    with pytest.raises(CompileError, match="phase 'input'"):
        compile(MLP, optimize=False)
    assert len(calls) == 1


def test_programs_with_complex_values_compile_without_data_tiling():
    src = ("func.func @main(%a: tensor<4x4xcomplex<f64>>) -> tensor<4x4xcomplex<f64>> {\n"
           "  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : "
           "(tensor<4x4xcomplex<f64>>, tensor<4x4xcomplex<f64>>) -> tensor<4x4xcomplex<f64>>\n"
           "  return %0 : tensor<4x4xcomplex<f64>>\n}")
    artifact = compile(src)
    assert artifact.flag_set == "o3" and "--iree-opt-data-tiling=true" not in artifact.flags
    assert compile(MLP).flag_set == TARGETS["llvm-cpu"].flag_sets[0][0]
    a = (np.arange(16) + 1j * np.arange(16)[::-1]).reshape(4, 4)
    from oxla import runtime
    np.testing.assert_allclose(runtime.load(artifact).main(a), a @ a)


@pytest.mark.parametrize("value", ["converted", "argument"])
def test_complex_f64_pads_compile(value):
    """jnp.pad of complex128 pads with a converted integer zero; IREE rejected its complex<f64> fill (an
    i128 splat), and failed on the converted scalar too (oxla-split-complex-pads)."""
    t, v = "tensor<3x4xcomplex<f64>>", "tensor<complex<f64>>"
    pad = f"stablehlo.pad %a, %v, low = [1, 0], high = [0, 2], interior = [1, 0] : ({t}, {v}) -> tensor<6x6xcomplex<f64>>"
    if value == "converted":
        head = f"func.func @main(%a: {t}, %z: tensor<i64>) -> tensor<6x6xcomplex<f64>> {{\n" \
               f"  %v = stablehlo.convert %z : (tensor<i64>) -> {v}\n"
        args = (np.int64(3),)
    else:
        head = f"func.func @main(%a: {t}, %v: {v}) -> tensor<6x6xcomplex<f64>> {{\n"
        args = (np.complex128(2 - 1j),)
    from oxla import runtime
    a = (np.arange(12) + 1j * np.arange(12)[::-1]).reshape(3, 4)
    got = np.asarray(runtime.load(compile(head + f"  %p = {pad}\n  return %p : tensor<6x6xcomplex<f64>>\n}}")).main(
        a, *args))
    want = np.full((6, 6), complex(args[0]))
    want[1:6:2, :4] = a
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("element", ["complex<f32>", "complex<f64>"])
def test_complex_windows_with_padding_compile(element):
    """A complex sum pool with 'SAME' padding crashed IREE's compiler (complex<f32>: a linalg.fill of a
    complex value) or was rejected (complex<f64>); oxla pads the input first, as two real pads."""
    t, s = f"tensor<5x7x{element}>", f"tensor<{element}>"
    src = (f"func.func @main(%x: {t}) -> tensor<5x4x{element}> {{\n"
           f"  %z = stablehlo.constant dense<(0.0, 0.0)> : {s}\n"
           f'  %0 = "stablehlo.reduce_window"(%x, %z) <{{padding = dense<[[0, 1], [1, 1]]> : tensor<2x2xi64>, '
           f"window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 1, 2>}}> ({{\n"
           f"  ^bb0(%a: {s}, %b: {s}):\n    %r = stablehlo.add %a, %b : {s}\n    stablehlo.return %r : {s}\n"
           f"  }}) : ({t}, {s}) -> tensor<5x4x{element}>\n  return %0 : tensor<5x4x{element}>\n}}\n")
    from oxla import runtime
    dtype = np.complex64 if element == "complex<f32>" else np.complex128
    x = (np.arange(35) + 1j * np.arange(35)[::-1]).reshape(5, 7).astype(dtype)
    padded = np.pad(x, ((0, 1), (1, 1)))
    want = np.array([[padded[i:i + 2, 2 * j:2 * j + 3].sum() for j in range(4)] for i in range(5)])
    np.testing.assert_allclose(np.asarray(runtime.load(compile(src)).main(x)), want, rtol=1e-6)


@pytest.mark.parametrize("element", ["complex<f32>", "complex<f64>"])
@pytest.mark.parametrize("padding", ["[[7, 0], [0, 0]]", "[[0, 7], [0, 0]]"], ids=["forward", "reverse"])
def test_complex_cumulative_windows_run_as_scans(element, padding):
    """jnp.cumprod of complex values: a window spanning its dimension, padded on one side. IREE runs it
    as a scan (O(n)) with XLA's rounding; padding its input first made it an O(n^2) window."""
    t, s = f"tensor<8x3x{element}>", f"tensor<{element}>"
    src = (f"func.func @main(%x: {t}) -> {t} {{\n"
           f"  %one = stablehlo.constant dense<(1.0, 0.0)> : {s}\n"
           f'  %0 = "stablehlo.reduce_window"(%x, %one) <{{padding = dense<{padding}> : tensor<2x2xi64>, '
           f"window_dimensions = array<i64: 8, 1>}}> ({{\n"
           f"  ^bb0(%a: {s}, %b: {s}):\n    %r = stablehlo.multiply %a, %b : {s}\n    stablehlo.return %r : {s}\n"
           f"  }}) : ({t}, {s}) -> {t}\n  return %0 : {t}\n}}\n")
    from oxla import runtime
    assert "iree_linalg_ext.scan" in str(compile(src, compile_to="input"))
    dtype = np.complex64 if element == "complex<f32>" else np.complex128
    x = (1 + 0.1 * np.arange(24) + 0.05j * np.arange(24)[::-1]).reshape(8, 3).astype(dtype)
    want = np.cumprod(x, axis=0) if padding.startswith("[[7") else np.cumprod(x[::-1], axis=0)[::-1]
    np.testing.assert_allclose(np.asarray(runtime.load(compile(src)).main(x)), want, rtol=1e-5)


def test_a_rejected_flag_leaves_no_flag_behind():
    from oxla.pipelines import compiler as compiler_module

    with pytest.raises(ValueError, match="invalid compiler flag"):
        compile(MLP, flags=["--iree-llvmcpu-enable-ukernels=all", "--iree-no-such-flag"])
    session = compiler_module._compiler()
    assert session.current == {}
    flags = dict(f.partition("=")[::2] for f in session.session.get_flags(True))
    assert flags.get("--iree-llvmcpu-enable-ukernels", session.defaults.get("--iree-llvmcpu-enable-ukernels")) == \
        session.defaults.get("--iree-llvmcpu-enable-ukernels")


def test_executable_target_flags_reach_the_device_target():
    # IREE's CPU backend reads ukernels (and CPU features...) from the module's executable target,
    # not from the session: compile() resolves --iree-llvmcpu-* flags into it.
    def ukernels(**options):
        text = ir.to_text(compile(MLP, compile_to="executable-sources", **options))
        return re.findall(r'ukernels = "([^"]*)"', text)

    assert set(ukernels()) == {"none"}  # an f32 program: see the next test
    assert set(ukernels(flags=["--iree-llvmcpu-enable-ukernels=all"])) == {"all"}
    assert set(ukernels()) == {"none"}  # and nothing is left behind for the next compile


def _dot(element: str) -> str:
    return (f"func.func @main(%a: tensor<32x32x{element}>, %b: tensor<32x32x{element}>) -> tensor<32x32xf32> {{\n"
            f"  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
            f"(tensor<32x32x{element}>, tensor<32x32x{element}>) -> tensor<32x32xf32>\n"
            "  return %0 : tensor<32x32xf32>\n}")


def test_microkernels_only_for_contractions_that_gain_from_them():
    # IREE's mmt4d microkernel costs LLVM 0.12-0.2 s per compile and runs f32 no faster than IREE's
    # generated code; bf16 it runs 3x faster (targets.LLVM_CPU_PLAIN_CONTRACTIONS).
    from oxla import runtime
    from oxla.pipelines.compiler import device_target, program_flags
    from oxla.transforms.cpu_kernels import device_features

    off = "--iree-llvmcpu-enable-ukernels=none"
    cpu = TARGETS["llvm-cpu"]
    assert program_flags(ir.parse(_dot("f32")), cpu) == (off,)
    assert program_flags(ir.parse(_dot("bf16")), cpu) == ()
    assert program_flags(ir.parse(ADD), cpu) == (off,)  # no contraction at all
    assert program_flags(ir.parse(_dot("f32")), cpu, ["--iree-llvmcpu-enable-ukernels=mmt4d"]) == ()
    assert program_flags(ir.parse(_dot("f32")), TARGETS["vulkan-spirv"]) == ()
    # Resumed past StableHLO, the program's device target already holds the choice made at the start.
    resumed = compile(compile(_dot("bf16"), compile_to="input"), compile_from="input")
    assert off not in resumed.flags
    host_bf16 = "+avx512bf16" in device_features(device_target(cpu, "host"))
    rng = np.random.default_rng(0)
    for element, dtype in (("f32", np.float32), ("bf16", ml_dtypes.bfloat16)):
        artifact = compile(_dot(element))
        # bf16 keeps the microkernel where the CPU has bf16 instructions; elsewhere it computes in f32
        assert (off in artifact.flags) == (element == "f32" or not host_bf16)
        a, b = (rng.standard_normal((32, 32)).astype(dtype) for _ in range(2))
        np.testing.assert_allclose(runtime.load(artifact).main(a, b), a.astype(np.float32) @ b.astype(np.float32),
                                   rtol=1e-4, atol=1e-4)


def test_a_first_compile_leaves_the_costly_dialect_modules_unimported():
    """Compiling the bundled MLP in a fresh process imports neither the bindings' linalg module (0.16 s:
    its opdsl named ops) nor their llvm one (0.05 s): oxla's passes read ops as Operations, not OpViews,
    which import their dialect's module."""
    example = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "mlp.mlir")
    script = ("import sys, oxla\n"
              f"oxla.compile(open({example!r}).read())\n"
              "print(sorted(m for m in ('iree.compiler.dialects.linalg', 'iree.compiler.dialects.llvm')"
              " if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
