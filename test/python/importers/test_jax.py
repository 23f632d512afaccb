"""oxla.importers.jax: JAX functions, Exported objects and serialized artifacts, checked against JAX's own results."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

try:
    import jax
    import jax.numpy as jnp
    from jax import lax
except ImportError:  # the tests that need JAX skip; the ImportError test runs
    jax = None

needs_jax = pytest.mark.skipif(jax is None, reason="jax is not installed (pip install 'oxla[jax]')")


def _close(got, want) -> None:
    """Same pytree, f32 values within 1e-4 relative."""
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-6)


def _random(shape, seed: int, scale: float = 1.0) -> np.ndarray:
    """A float32 array of standard normal values."""
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


# ----------------------------------------------------------------------------
# Models written with jax.numpy / jax.lax
# ----------------------------------------------------------------------------


def mlp(variables, x):
    """Two dense layers over a flax-style {"params": {"Dense_0": {"kernel", "bias"}, ...}} tree."""
    p = variables["params"]
    h = jax.nn.relu(x @ p["Dense_0"]["kernel"] + p["Dense_0"]["bias"])
    return h @ p["Dense_1"]["kernel"] + p["Dense_1"]["bias"]


def mlp_variables(seed: int = 0):
    """Parameters of `mlp` for 8 inputs, 16 hidden units, 4 outputs."""
    return {"params": {"Dense_0": {"kernel": _random((8, 16), seed, 0.3), "bias": _random((16,), seed + 1, 0.1)},
                       "Dense_1": {"kernel": _random((16, 4), seed + 2, 0.3), "bias": _random((4,), seed + 3, 0.1)}}}


def cnn(params, stats, images):
    """conv -> batch norm (inference, running statistics) -> relu -> 2x2 max pool -> global mean -> dense."""
    y = lax.conv_general_dilated(images, params["conv"]["kernel"], (1, 1), "SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    y = (y - stats["mean"]) * lax.rsqrt(stats["var"] + 1e-5) * params["bn"]["scale"] + params["bn"]["bias"]
    y = jax.nn.relu(y)
    y = lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    return y.mean(axis=(1, 2)) @ params["head"]["kernel"] + params["head"]["bias"]


def _layer_norm(x, scale, bias):
    """Layer norm over the last axis."""
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * scale + bias


def encoder_layer(p, x, heads: int = 2):
    """A post-norm transformer encoder layer: multi-head self-attention, layer norm, exact-gelu MLP."""
    batch, seq, dim = x.shape
    split = lambda t: t.reshape(batch, seq, heads, dim // heads)  # noqa: E731
    q, k, v = split(x @ p["wq"]), split(x @ p["wk"]), split(x @ p["wv"])
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(dim // heads).astype(np.float32)
    attention = jax.nn.softmax(scores, axis=-1)
    mixed = jnp.einsum("bhqk,bkhd->bqhd", attention, v).reshape(batch, seq, dim) @ p["wo"]
    x = _layer_norm(x + mixed, p["ln1"]["scale"], p["ln1"]["bias"])
    hidden = jax.nn.gelu(x @ p["w1"] + p["b1"], approximate=False) @ p["w2"] + p["b2"]
    return _layer_norm(x + hidden, p["ln2"]["scale"], p["ln2"]["bias"])


def sequence_model(p, tokens):
    """Token and position embeddings (jnp.take), a tanh layer, mean over time, log-softmax over classes."""
    embedded = jnp.take(p["embed"], tokens, axis=0) + p["position"][: tokens.shape[1]]
    pooled = jnp.tanh(embedded @ p["w"]).mean(axis=1)
    return jax.nn.log_softmax(pooled @ p["out"], axis=-1)


# ----------------------------------------------------------------------------
# Models end to end: import, compile for llvm-cpu, run, compare with JAX
# ----------------------------------------------------------------------------


def cnn_inputs(batch):
    """(params, stats, images) of `cnn` for 8x8 RGB images."""
    params = {"conv": {"kernel": _random((3, 3, 3, 8), 0, 0.3)},
              "bn": {"scale": _random((8,), 1, 0.2) + 1, "bias": _random((8,), 2, 0.1)},
              "head": {"kernel": _random((8, 5), 3, 0.3), "bias": _random((5,), 4, 0.1)}}
    stats = {"mean": _random((8,), 5, 0.1), "var": np.abs(_random((8,), 6)) + 0.5}
    return params, stats, _random((batch, 8, 8, 3), 7 + batch)


def encoder_inputs(batch, dim=8, ff=16):
    """(params, x) of `encoder_layer` for sequences of 5 vectors of `dim`."""
    p = {"wq": _random((dim, dim), 0, 0.3), "wk": _random((dim, dim), 1, 0.3), "wv": _random((dim, dim), 2, 0.3),
         "wo": _random((dim, dim), 3, 0.3), "w1": _random((dim, ff), 4, 0.3), "b1": _random((ff,), 5, 0.1),
         "w2": _random((ff, dim), 6, 0.3), "b2": _random((dim,), 7, 0.1),
         "ln1": {"scale": np.ones(dim, np.float32), "bias": np.zeros(dim, np.float32)},
         "ln2": {"scale": _random((dim,), 8, 0.1) + 1, "bias": _random((dim,), 9, 0.1)}}
    return p, _random((batch, 5, dim), 10 + batch)


def sequence_inputs(batch, vocab=20, dim=8, classes=3):
    """(params, tokens) of `sequence_model` for sequences of 6 int32 tokens."""
    p = {"embed": _random((vocab, dim), 0), "position": _random((6, dim), 1, 0.1),
         "w": _random((dim, dim), 2, 0.3), "out": _random((dim, classes), 3, 0.3)}
    return p, np.random.default_rng(batch).integers(0, vocab, (batch, 6)).astype(np.int32)


# name -> (model, its example arguments for a batch size); the batch is the leading dimension of the last one
MODELS = {
    "mlp": (mlp, lambda batch: (mlp_variables(), _random((batch, 8), 10 + batch))),
    "cnn_batch_norm": (cnn, cnn_inputs),
    "transformer_encoder_layer": (encoder_layer, encoder_inputs),
    "sequence_model_embeddings": (sequence_model, sequence_inputs),
}


@needs_jax
@pytest.mark.parametrize("name", MODELS)
def test_model_matches_jax(name):
    import oxla

    fn, inputs = MODELS[name]
    args = inputs(2)
    model = oxla.compile_model(fn, *args)
    _close(model(*args), fn(*args))


@needs_jax
@pytest.mark.parametrize("name", MODELS)
def test_symbolic_batch_dimension_becomes_dynamic(name):
    from oxla.importers import compile_model

    fn, inputs = MODELS[name]
    *fixed, last = inputs(1)
    batch, = jax.export.symbolic_shape("batch")
    model = compile_model(fn, *fixed, jax.ShapeDtypeStruct((batch, *last.shape[1:]), last.dtype))
    assert "jax.uses_shape_polymorphism = true" in str(model.imported.module)
    for size in (1, 3):
        args = inputs(size)
        _close(model(*args), fn(*args))
    expected = f"{np.dtype(last.dtype)}[{','.join(['batch', *map(str, last.shape[1:])])}]"
    with pytest.raises(ValueError, match=re.escape(f"expected {expected}, got")):
        model(*fixed, np.zeros((2, *last.shape[1:], 1), last.dtype))


@needs_jax
def test_flax_style_parameter_tree_keeps_its_names():
    from oxla.importers.jax import import_jax

    imported = import_jax(mlp, *MODELS["mlp"][1](2))
    assert imported.input_names == [
        "variables['params']['Dense_0']['bias']", "variables['params']['Dense_0']['kernel']",
        "variables['params']['Dense_1']['bias']", "variables['params']['Dense_1']['kernel']", "x"]
    assert imported.output_names == ["result"]


# ----------------------------------------------------------------------------
# Exported objects and serialized artifacts
# ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def exported_mlp():
    """jax.export of the MLP, with its example arguments."""
    if jax is None:
        pytest.skip("jax is not installed")
    variables, x = mlp_variables(), _random((3, 8), 20)
    return jax.export.export(jax.jit(mlp))(variables, x), variables, x


@needs_jax
def test_exported_and_its_serialization_import_alike(exported_mlp):
    from oxla.importers import compile_model
    from oxla.importers.jax import import_jax

    exported, variables, x = exported_mlp
    from_exported = import_jax(exported)
    from_bytes = import_jax(exported.serialize())
    assert str(from_bytes.module) == str(from_exported.module)
    assert from_bytes.input_names == from_exported.input_names
    assert from_exported.input_names[0] == "variables['params']['Dense_0']['bias']"
    model = compile_model(exported.serialize())  # the bytes: the pytree structure travels with them
    _close(model(variables, x), mlp(variables, x))
    _close(model(variables, x), exported.call(variables, x))


@needs_jax
def test_a_bare_portable_artifact_takes_flat_arrays(exported_mlp):
    from oxla.importers import compile_model

    exported, variables, x = exported_mlp
    model = compile_model(exported.mlir_module_serialized)
    assert model.imported.input_names[-1] == "x"
    flat = jax.tree_util.tree_leaves(variables) + [x]
    out = model(*flat)
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, np.asarray(mlp(variables, x)), rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="expected 5 array argument"):
        model(*flat[:4])


def _constants_of_every_kind():
    """(a function closing over 8x64 constants of every element kind JAX exports, one input)."""
    import ml_dtypes

    rng = np.random.default_rng(5)
    kinds = [np.float32, np.float16, ml_dtypes.bfloat16, np.int8, np.int32, np.uint8, np.bool_,
             ml_dtypes.float8_e4m3fn]
    values = [rng.standard_normal((8, 64)) * 3 for _ in kinds]
    constants = [(v > 0) if k is np.bool_ else v.astype(k) for v, k in zip(values, kinds)]
    complex_constant = (values[0] + 1j * values[1]).astype(np.complex64)

    def fn(x):
        return [x + jnp.asarray(c).astype(jnp.float32) for c in constants] + [x * jnp.real(complex_constant)]

    return fn, np.ones((8, 64), np.float32)


@needs_jax
def test_large_constants_cross_as_bytecode_and_import_as_the_text_would(monkeypatch):
    from oxla import ir
    from oxla.errors import ParseError
    from oxla.importers import compile_model
    from oxla.importers import jax as oxla_jax

    fn, x = _constants_of_every_kind()
    serialized = bytes(jax.export.export(jax.jit(fn))(x).mlir_module_serialized)
    text, constants = oxla_jax._generic_text(serialized, lift_constants=True)
    # Each constant of 8x64 ints or floats left the text; the complex one stayed.
    assert text.count("oxla.constant_slot") == 8 and len(text) < 20_000 and "complex<f32>" in text
    plain = ir.to_text(oxla_jax._parse(oxla_jax._generic_text(serialized, lift_constants=False)[0]))
    imported = oxla_jax.import_jax(fn, x)
    assert ir.to_text(imported.module) == plain and "oxla.constant_slot" not in plain
    outputs = compile_model(imported)(x)
    for got, want in zip(outputs, fn(x)):
        np.testing.assert_array_equal(got, np.asarray(want))
    # Constants this MLIR cannot read come through the text instead.
    real_parse = oxla_jax.ir.parse

    def refuse_constants(data, name="<source>", **kw):
        if name == "<jax.export constants>":
            raise ParseError("unreadable bytecode version")
        return real_parse(data, name=name, **kw)

    monkeypatch.setattr(oxla_jax.ir, "parse", refuse_constants)
    assert ir.to_text(oxla_jax.import_jax(fn, x).module) == plain


@needs_jax
def test_the_artifact_is_read_in_a_lean_context_or_else_in_jaxs_own(monkeypatch):
    from oxla import ir
    from oxla.importers import jax as oxla_jax

    fn, x = _constants_of_every_kind()
    serialized = bytes(jax.export.export(jax.jit(fn))(x).mlir_module_serialized)
    full = oxla_jax._print_artifact(serialized, False, jax.interpreters.mlir.make_ir_context())[0]
    used = []
    real_full = oxla_jax.make_ir_context
    monkeypatch.setattr(oxla_jax, "make_ir_context", lambda: used.append(1) or real_full())
    assert oxla_jax._generic_text(serialized, lift_constants=False)[0] == full and not used
    plain = ir.to_text(oxla_jax.import_jax(fn, x).module)
    # Where the lean context fails (a jaxlib without one of its dialects), JAX's own takes over.
    def no_dialect():
        raise ImportError("cannot import name 'sdy' from 'jaxlib.mlir.dialects'")

    monkeypatch.setattr(oxla_jax, "_artifact_context", no_dialect)
    assert oxla_jax._generic_text(serialized, lift_constants=False)[0] == full and used == [1]
    assert ir.to_text(oxla_jax.import_jax(fn, x).module) == plain


@needs_jax
def test_exported_for_several_platforms_runs_the_cpu_lowering():
    from oxla.importers import compile_model

    fn = lambda x: jnp.sin(x) * 2  # noqa: E731
    x = _random((3,), 0)
    exported = jax.export.export(jax.jit(fn), platforms=("cuda", "cpu"))(x)
    model = compile_model(exported)
    assert "_platform_index" not in str(model.imported.module)
    assert model.imported.input_names == ["x"]
    _close(model(x), fn(x))


@needs_jax
def test_arguments_jax_leaves_out_of_the_module_are_still_taken_and_checked():
    from oxla.importers import compile_model

    def scale(p, x, *rest, shift):
        return x * p["used"] + rest[0] + shift

    p, x = {"used": np.float32(2), "unused": np.ones(3, np.float32)}, _random((2,), 0)
    model = compile_model(scale, p, x, x, shift=np.float32(1))
    assert model.imported.input_names == ["p['used']", "x", "rest[0]", "shift"]
    _close(model(p, x, x, shift=np.float32(1)), scale(p, x, x, shift=np.float32(1)))
    with pytest.raises(ValueError, match=re.escape("missing p['unused']")):
        model({"used": np.float32(2)}, x, x, shift=np.float32(1))


@needs_jax
def test_dimension_variables_must_agree_across_arguments():
    from oxla.importers.jax import import_jax

    n, = jax.export.symbolic_shape("n")
    imported = import_jax(lambda a, b: a + b, *[jax.ShapeDtypeStruct((n,), jnp.float32)] * 2)
    assert len(imported.flatten_inputs(np.ones(3, np.float32), np.ones(3, np.float32))) == 2
    with pytest.raises(ValueError, match="dimension 'n' is 4 here but 3 in a"):
        imported.flatten_inputs(np.ones(3, np.float32), np.ones(4, np.float32))


# ----------------------------------------------------------------------------
# Argument checks and array types
# ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compiled_mlp():
    """The MLP compiled once, with its example arguments."""
    if jax is None:
        pytest.skip("jax is not installed")
    from oxla.importers import compile_model

    variables, x = mlp_variables(), _random((2, 8), 30)
    return compile_model(jax.jit(mlp), variables, x), variables, x


@needs_jax
def test_jax_arrays_in_give_jax_arrays_out_and_numpy_gives_numpy(compiled_mlp):
    model, variables, x = compiled_mlp
    assert isinstance(model(variables, x), np.ndarray)
    on_device = jax.tree_util.tree_map(jnp.asarray, (variables, x))
    out = model(*on_device)
    assert isinstance(out, jax.Array)
    _close(out, mlp(*on_device))
    assert model(variables, x.astype(np.float64)).dtype == np.float32  # float64 taken as jax.jit takes it


@needs_jax
def test_mismatched_arguments_raise_value_error_naming_the_argument(compiled_mlp):
    model, variables, x = compiled_mlp
    wrong = jax.tree_util.tree_map(lambda a: a, variables)
    wrong["params"]["Dense_1"]["kernel"] = np.zeros((16, 5), np.float32)
    with pytest.raises(ValueError, match=re.escape("variables['params']['Dense_1']['kernel']: expected float32[16,4]")):
        model(wrong, x)
    with pytest.raises(ValueError, match=r"x: expected float32\[2,8\], got int32\[2,8\]"):
        model(variables, x.astype(np.int32))
    del wrong["params"]["Dense_1"]
    with pytest.raises(ValueError, match=re.escape("missing variables['params']['Dense_1']['bias']")):
        model(wrong, x)


@needs_jax
def test_mismatched_example_arguments_raise_value_error(exported_mlp):
    from oxla.importers.jax import import_jax

    exported, variables, x = exported_mlp
    with pytest.raises(ValueError, match=r"x: expected float32\[3,8\], got float32\[3,9\]"):
        import_jax(exported, variables, np.zeros((3, 9), np.float32))
    with pytest.raises(ValueError, match="the example arguments do not fit mlp"):
        import_jax(mlp, variables)
    with pytest.raises(ValueError, match=re.escape("variables['params']['name']: expected an array")):
        import_jax(mlp, {"params": {"name": "dense"}}, x)
    with pytest.raises(ValueError, match="tracing mlp with the example arguments failed"):
        import_jax(mlp, variables, np.zeros((3, 9), np.float32))


@needs_jax
def test_not_an_artifact_raises_value_error():
    from oxla.importers.jax import import_jax

    with pytest.raises(ValueError, match="not a jax.export serialization"):
        import_jax(b"definitely not a model")
    with pytest.raises(TypeError, match="import_jax takes"):
        import_jax(42)


@needs_jax
def test_unsupported_custom_calls_are_listed_with_locations_before_lowering():
    from oxla.importers import UnsupportedOperatorsError
    from oxla.importers.jax import import_jax

    def eigenvalues_twice(a, b):
        return jnp.linalg.eigvals(a) + jnp.linalg.eigvals(a.T)  # a LAPACK kernel oxla does not rewrite

    def of_two_sizes(a, b):
        return jnp.linalg.eigvals(a).sum() + jnp.linalg.eigvals(a[:2, :2]).sum()

    with pytest.raises(UnsupportedOperatorsError) as info:
        import_jax(eigenvalues_twice, np.eye(3, dtype=np.float32), np.ones((3, 1), np.float32))
    text = str(info.value)
    # in JAX's private `eig` function, called from both `jnp.linalg.eigvals` calls on one line
    assert re.search(r"stablehlo.custom_call @lapack_sgeev_ffi x1 at \S*test_jax.py:(\d+):\d+, \S*test_jax.py:\1:\d+",
                     text), text
    with pytest.raises(UnsupportedOperatorsError) as info:
        import_jax(of_two_sizes, np.eye(3, dtype=np.float32), np.ones((3, 1), np.float32))
    assert "stablehlo.custom_call @lapack_sgeev_ffi x2" in str(info.value)


@needs_jax
def test_the_lapack_calls_oxla_rewrites_import():
    from oxla.importers.jax import import_jax

    def solve_twice(a, b):
        return jnp.linalg.solve(a, b) + jnp.linalg.solve(a.T, b)

    text = str(import_jax(solve_twice, np.eye(3, dtype=np.float32), np.ones((3, 1), np.float32)).module)
    assert "@lapack_sgetrf_ffi" in text and "@lapack_strsm_ffi" in text


# ----------------------------------------------------------------------------
# Shardy and GSPMD sharding annotations
# ----------------------------------------------------------------------------


def _explicit(hlo: str) -> str:
    """An HLO sharding with an iota tile assignment (`<=[4]`, `<=[2,2]T(1,0)`) written with explicit devices."""
    match = re.fullmatch(r"\{devices=\[([\d,]+)\]<=\[([\d,]+)\](?:T\(([\d,]+)\))?(.*)\}", hlo)
    if not match:
        return hlo
    dims, reshape, perm, rest = match.groups()
    ids = np.arange(int(np.prod([int(d) for d in reshape.split(",")]))).reshape([int(d) for d in reshape.split(",")])
    if perm:
        ids = ids.transpose([int(p) for p in perm.split(",")])
    return f"{{devices=[{dims}]{','.join(str(i) for i in ids.flatten())}{rest}}}"


def _shardings(imported) -> dict[str, list[str]]:
    """The mhlo.sharding strings of main's arguments, results and ops (explicit device lists)."""
    from oxla import ir

    main = next(op for op in ir.ops(imported.module) if op.name == "func.func")
    found = {"args": [], "results": [], "ops": []}
    for key, name in (("args", "arg_attrs"), ("results", "res_attrs")):
        for attrs in ir.ArrayAttr(main.attributes[name]) if name in main.attributes else []:
            attrs = ir.DictAttr(attrs)
            text = ir.StringAttr(attrs["mhlo.sharding"]).value if "mhlo.sharding" in attrs else ""
            found[key].append(_explicit(text))
    for op in ir.ops(main):
        if "mhlo.sharding" in op.attributes:
            found["ops"].append(f"{op.name} {_explicit(ir.StringAttr(op.attributes['mhlo.sharding']).value)}")
    return found


_SHARDY_TEXT = '''
module @sharded attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  sdy.mesh @ring = <["z"=4], device_ids=[3, 2, 1, 0]>
  func.func public @forward(%t: !stablehlo.token, %a: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>})
      -> (!stablehlo.token, tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@ring, [{"z":(2)2}, {"z":(1)2}]>}) {
    %0 = sdy.sharding_constraint %a <@mesh, [{"x", "y"}, {}]> : tensor<4x4xf32>
    %1 = stablehlo.sine %0 : tensor<4x4xf32>
    %2 = stablehlo.cosine %a : tensor<4x4xf32>
    %3 = stablehlo.add %1, %2 : tensor<4x4xf32>
    return %t, %3 : !stablehlo.token, tensor<4x4xf32>
  }
}
'''


@needs_jax
def test_shardy_translation_matches_xla_on_sub_axes_device_orders_and_tokens():
    """The same Shardy program serialized with its sdy ops (oxla translates them) and without (XLA did)."""
    from jax.extend.mlir import serialize_portable_artifact
    from jax.interpreters.mlir import make_ir_context

    from oxla import ir
    from oxla.importers import compile_model
    from oxla.importers.jax import import_jax

    with make_ir_context():
        with_sdy = serialize_portable_artifact(_SHARDY_TEXT, "1.0.0", True)
        by_xla = serialize_portable_artifact(_SHARDY_TEXT, "1.0.0", False)
    ours, xlas = import_jax(with_sdy), import_jax(by_xla)
    assert _shardings(ours) == _shardings(xlas)
    assert _shardings(ours)["results"] == ["{devices=[2,2]3,1,2,0}"]
    text = str(ours.module)
    assert "sdy." not in text.replace("#sdy.", "")  # every sdy op and attribute translated
    assert 'oxla.sharding = "#sdy.sharding<@ring, [{\\22z\\22:(2)2}, {\\22z\\22:(1)2}]>"' in text
    assert "ring = \"#sdy.mesh<[\\22z\\22=4], device_ids=[3, 2, 1, 0]>\"" in text
    assert "!stablehlo.token" not in str(ir.TypeAttr(ir.ops(ours.module)[1].attributes["function_type"]))
    model = compile_model(with_sdy)  # entry `forward` renamed main; the token made inside
    a = _random((4, 4), 0)
    np.testing.assert_allclose(model(a), np.sin(a) + np.cos(a), rtol=1e-5, atol=1e-6)


_TWO_DEVICES = textwrap.dedent('''
    import json, sys
    import numpy as np, jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P
    from oxla.importers import compile_model, UnsupportedOperatorsError
    from oxla.importers.jax import import_jax
    sys.path.insert(0, sys.argv[1])
    from test_jax import _shardings

    assert jax.device_count() == 2
    mesh = jax.make_mesh((2,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))

    def f(a, b):
        c = jax.lax.with_sharding_constraint(a @ b, NamedSharding(mesh, P(None, "x")))
        return {"out": jnp.tanh(c) + 1}

    def per_device(a):
        return jax.shard_map(lambda s: jax.lax.psum(s, "x"), mesh=mesh, in_specs=P("x"), out_specs=P("x"))(a)

    a = jax.device_put(np.arange(24, dtype=np.float32).reshape(4, 6) / 24, NamedSharding(mesh, P("x", None)))
    b = jax.device_put(np.ones((6, 4), np.float32) / 4, NamedSharding(mesh, P()))
    report = {}
    for shardy in (True, False):
        jax.config.update("jax_use_shardy_partitioner", shardy)
        jitted = jax.jit(f, out_shardings={"out": NamedSharding(mesh, P("x"))})
        model = compile_model(jitted, a, b)
        got = model(a, b)["out"]
        try:
            compile_model(per_device, a)
            unsupported = ""
        except UnsupportedOperatorsError as exc:
            unsupported = str(exc)
        report["shardy" if shardy else "gspmd"] = {
            "shardings": _shardings(model.imported), "text": str(model.imported.module),
            "error": float(np.abs(np.asarray(got) - np.asarray(jitted(a, b)["out"])).max()),
            "jax_out": isinstance(got, jax.Array), "unsupported": unsupported}
    explicit = jax.make_mesh((2,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    with jax.set_mesh(explicit):  # explicit mesh axes need Shardy; the loop above ended with GSPMD
        jax.config.update("jax_use_shardy_partitioner", True)
        moved = lambda a: jax.sharding.reshard(a * 2, P(None, "x")) + 1
        report["reshard"] = _shardings(import_jax(moved, jax.device_put(a, NamedSharding(explicit, P("x", None)))))
    print(json.dumps(report))
''')


@needs_jax
def test_sharding_annotations_on_a_two_device_mesh_are_kept():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu")
    here = os.path.dirname(os.path.abspath(__file__))
    run = subprocess.run([sys.executable, "-c", _TWO_DEVICES, here], capture_output=True, text=True, env=env,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    shardy, gspmd = report["shardy"], report["gspmd"]
    expected = {"args": ["{devices=[2,1]0,1}", "{replicated}"], "results": ["{devices=[2,1]0,1}"],
                "ops": ["stablehlo.dot_general {devices=[1,2]0,1}"]}  # the constraint, on the value's producer
    assert shardy["shardings"] == expected
    assert gspmd["shardings"] == expected
    assert 'oxla.sharding = "#sdy.sharding<@mesh, [{\\22x\\22}, {}]>"' in shardy["text"]
    assert 'oxla.meshes = {mesh = "#sdy.mesh<[\\22x\\22=2]>"}' in shardy["text"]
    assert "custom_call" not in gspmd["text"] and "mhlo.num_partitions = 2" in gspmd["text"]
    for run_ in (shardy, gspmd):
        assert run_["error"] < 1e-6 and run_["jax_out"]
    # reshard of a value already constrained otherwise: an identity convert carries the new sharding
    assert "stablehlo.convert {devices=[1,2]0,1}" in report["reshard"]["ops"]
    assert report["reshard"]["results"] == ["{devices=[1,2]0,1}"]
    shard_map_line = _TWO_DEVICES.splitlines().index(next(
        line for line in _TWO_DEVICES.splitlines() if "jax.shard_map" in line)) + 1
    assert f"sdy.manual_computation x1 at <string>:{shard_map_line}:" in shardy["unsupported"]
    assert f"stablehlo.custom_call @SPMDFullToShardShape x1 at <string>:{shard_map_line}:" in gspmd["unsupported"]


# ----------------------------------------------------------------------------
# The coverage table and the optional dependency
# ----------------------------------------------------------------------------


@needs_jax
def test_coverage_rows_describe_every_construct():
    from oxla.importers.jax import CONSTRUCTS, coverage_rows

    rows = coverage_rows()
    assert len(rows) == len(CONSTRUCTS) and all(set(r) == {"op", "status", "note"} for r in rows)
    statuses = {r["op"]: r["status"] for r in rows}
    assert statuses["sdy.sharding_constraint"] == "legalized"
    assert statuses["sdy.manual_computation"] == "unsupported"
    assert all(r["status"] in ("translated", "legalized", "kept", "unsupported") and r["note"] for r in rows)


def test_importing_without_jax_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", None)  # what `import jax` finds when JAX is not installed
    monkeypatch.delitem(sys.modules, "oxla.importers.jax", raising=False)
    with pytest.raises(ImportError, match=re.escape("pip install 'oxla[jax]'")):
        importlib.import_module("oxla.importers.jax")
