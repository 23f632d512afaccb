"""oxla-hoist-step-contractions: a loop step's product of its input row with a fixed matrix, computed before the loop."""

import pathlib
import re

import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile

LIT = pathlib.Path(__file__).parents[1] / "lit" / "transforms" / "oxla-hoist-step-contractions.mlir"
PASS = "oxla-hoist-step-contractions"


def _programs() -> dict[str, str]:
    """The lit test's functions by name, each as a module of its own."""
    pieces = LIT.read_text().split("// -----")
    return {re.search(r"^func\.func @(\w+)", text, re.M)[1]: text for text in pieces}


def _rnn_inputs(seed: int = 3):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((16, 8, 64)).astype(np.float32)
    w, u = ((rng.standard_normal((64, 64)) * 0.1).astype(np.float32) for _ in range(2))
    return x, w, u


def _loop_dots(text: str) -> int:
    """The dot_generals inside the loop body once the pass (and the inlining it does) has run."""
    module = ir.parse(text)
    transforms.run(module, f"builtin.module({PASS})")
    ir.verify_or_raise(module)
    body = next(op for op in ir.ops(module) if op.name == "stablehlo.while").regions[1].blocks[0]
    return sum(op.name == "stablehlo.dot_general" for op in body.operations)


def test_the_step_product_leaves_the_loop_only_where_it_is_taken():
    programs = _programs()
    assert _loop_dots(programs["rnn"]) == 1  # h U stays
    assert _loop_dots(programs["called_step"]) == 0
    assert _loop_dots(programs["left_alone"]) == 4
    assert _loop_dots(programs["few_trips"]) == 1


def test_a_hoisted_rnn_computes_what_the_loop_did():
    src = _programs()["rnn"].replace("func.func @rnn", "func.func @main")
    x, w, u = _rnn_inputs()
    got = np.asarray(runtime.load(compile(src)).main(x, w, u))
    plain = np.asarray(runtime.load(compile(src, disable_passes=[PASS])).main(x, w, u))
    h = np.zeros((8, 64))
    for t in range(16):
        h = np.tanh(x[t].astype(np.float64) @ w + h @ u)
    np.testing.assert_allclose(got, h, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, plain, rtol=1e-5, atol=1e-5)


def test_a_called_step_with_its_row_dimension_computes_the_sum_of_products():
    src = _programs()["called_step"].replace("func.func @called_step", "func.func @main")
    x, w, _ = _rnn_inputs(4)
    w = w[:, :32].copy()
    got = np.asarray(runtime.load(compile(src)).main(x, w))
    np.testing.assert_allclose(got[0], np.einsum("tbk,kn->bn", x.astype(np.float64), w), rtol=1e-5, atol=1e-4)


def test_a_jax_scan_rnn_has_its_input_product_hoisted_and_matches_xla():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    x, w, u = _rnn_inputs(5)

    def rnn(xs, w, u):
        def step(h, x):
            h = jnp.tanh(x @ w + h @ u)
            return h, h
        return jax.lax.scan(step, jnp.zeros(xs.shape[1:], xs.dtype), xs)[1]

    text = jax.jit(rnn).lower(x, w, u).as_text()
    module = ir.parse(text)
    transforms.run(module, f"builtin.module(oxla-hlo-opt,{PASS})")
    assert _loop_dots(ir.to_text(module)) == 1
    got = np.asarray(runtime.load(compile(text)).main(x, w, u))
    np.testing.assert_allclose(got, np.asarray(jax.jit(rnn)(x, w, u)), rtol=1e-5, atol=1e-5)


def test_vulkan_runs_a_hoisted_rnn_where_it_exists():
    if not any(d.name == "vulkan" and d.available for d in runtime.devices()):
        pytest.skip("no vulkan device on this machine")
    src = _programs()["rnn"].replace("func.func @rnn", "func.func @main")
    x, w, u = _rnn_inputs(6)
    got = runtime.load(compile(src, target="vulkan-spirv"), device="vulkan").main(x, w, u)
    want = runtime.load(compile(src)).main(x, w, u)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
