"""The model zoo: every benchmark model defined once, as a JAX function.

A model is a JAX function of its activations; its weights are numpy arrays it
closes over, so they reach every system as part of the model (constants in
StableHLO, parameters in torch, initializers in ONNX) and only activations
cross per call. `build(name)` returns a `Model` with the function, example
inputs (seeded, so every process sees the same numbers), the FLOP count where
it is meaningful, and the tolerance its outputs must meet against XLA's.

`bert` is a real architecture from a library: transformers' BertModel with a
small config and random weights (nothing is downloaded). Its JAX port below
takes the weights of that very torch module and is checked against it when
the model is built; torch and ONNX Runtime run the library's own module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass
class Model:
    """One benchmark model: a JAX function, its inputs, and how to judge its outputs."""

    name: str
    description: str
    fn: Callable  # jax function of the inputs (weights are closed over)
    inputs: list[np.ndarray]
    flops: float | None = None  # per call, where the model is dominated by arithmetic
    tolerance: float = 1e-4  # max |out - xla| / max |xla|, per output
    torch_module: Callable[[], object] | None = None  # a library's own torch module, when it has one
    notes: list[str] = field(default_factory=list)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _normal(rng, shape, scale=1.0, dtype=np.float32) -> np.ndarray:
    return (rng.standard_normal(shape, dtype=np.float32) * scale).astype(dtype)


def _dense_init(rng, fan_in: int, fan_out: int) -> tuple[np.ndarray, np.ndarray]:
    return _normal(rng, (fan_in, fan_out), np.sqrt(2.0 / fan_in)), _normal(rng, (fan_out,), 0.1)


# ---------------------------------------------------------------------------
# The models
# ---------------------------------------------------------------------------


def gemm_f32() -> Model:
    import jax.numpy as jnp

    rng = _rng(1)
    n = 1024
    a, b = _normal(rng, (n, n)), _normal(rng, (n, n))
    return Model("gemm_f32", "f32 GEMM 1024x1024x1024", lambda x, y: jnp.matmul(x, y),
                 [a, b], flops=2.0 * n**3, tolerance=1e-5)


def gemm_bf16() -> Model:
    import jax.numpy as jnp
    import ml_dtypes
    from jax import lax

    rng = _rng(2)
    n = 1024
    a = _normal(rng, (n, n), dtype=ml_dtypes.bfloat16)
    b = _normal(rng, (n, n), dtype=ml_dtypes.bfloat16)

    def fn(x, y):
        return lax.dot(x, y, preferred_element_type=jnp.float32)

    # torch's CPU bf16 matmul rounds its result to bf16: 2^-8 relative.
    return Model("gemm_bf16", "bf16 GEMM 1024^3, f32 accumulation and result", fn,
                 [a, b], flops=2.0 * n**3, tolerance=1e-2)


def mlp() -> Model:
    import jax
    import jax.numpy as jnp

    rng = _rng(3)
    sizes = (784, 1024, 1024, 10)
    layers = [_dense_init(rng, i, o) for i, o in zip(sizes, sizes[1:])]
    x = _normal(rng, (64, 784))

    def fn(x):
        for i, (w, b) in enumerate(layers):
            x = jnp.matmul(x, w) + b
            if i < len(layers) - 1:
                x = jax.nn.relu(x)
        return jax.nn.softmax(x, axis=-1)

    flops = 2.0 * 64 * sum(i * o for i, o in zip(sizes, sizes[1:]))
    return Model("mlp", "MLP batch 64, 784-1024-1024-10, relu, softmax", fn, [x], flops=flops)


def resnet_block() -> Model:
    import jax
    from jax import lax

    rng = _rng(4)
    c = 64
    w1, w2 = _normal(rng, (3, 3, c, c), np.sqrt(2.0 / (9 * c))), _normal(rng, (3, 3, c, c), np.sqrt(2.0 / (9 * c)))
    b1, b2 = _normal(rng, (c,), 0.1), _normal(rng, (c,), 0.1)
    x = _normal(rng, (1, 56, 56, c))
    dims = ("NHWC", "HWIO", "NHWC")

    def conv(x, w, b):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=dims) + b

    def fn(x):
        y = jax.nn.relu(conv(x, w1, b1))
        return jax.nn.relu(conv(y, w2, b2) + x)

    flops = 2 * 2.0 * 56 * 56 * c * c * 9
    return Model("resnet_block", "ResNet basic block, NHWC 1x56x56x64, two 3x3 convs, bias, relu, residual",
                 fn, [x], flops=flops)


def resnet_down() -> Model:
    import jax
    from jax import lax

    rng = _rng(9)
    c, f = 64, 128
    w1, w2 = _normal(rng, (3, 3, c, f), np.sqrt(2.0 / (9 * c))), _normal(rng, (3, 3, f, f), np.sqrt(2.0 / (9 * f)))
    wp = _normal(rng, (1, 1, c, f), np.sqrt(1.0 / c))
    b1, b2, bp = (_normal(rng, (f,), 0.1) for _ in range(3))
    x = _normal(rng, (1, 56, 56, c))
    dims = ("NHWC", "HWIO", "NHWC")

    def conv(x, w, b, stride, padding):
        return lax.conv_general_dilated(x, w, (stride, stride), padding, dimension_numbers=dims) + b

    def fn(x):
        y = jax.nn.relu(conv(x, w1, b1, 2, "SAME"))
        return jax.nn.relu(conv(y, w2, b2, 1, "SAME") + conv(x, wp, bp, 2, "VALID"))

    flops = 2.0 * 28 * 28 * f * (9 * c + 9 * f + c)
    return Model("resnet_down", "ResNet stage transition, NHWC 1x56x56x64 -> 1x28x28x128: 3x3 stride-2 and 3x3 "
                 "convs with bias and relu, a 1x1 stride-2 projection on the shortcut", fn, [x], flops=flops)


def _layer_norm(x, g, b, eps):
    import jax.numpy as jnp

    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * (1.0 / jnp.sqrt(var + eps)) * g + b


def _attention(x, wq, bq, wk, bk, wv, bv, wo, bo, heads):
    """Multi-head self-attention of x [..., s, d] with (in, out) weight matrices."""
    import jax
    import jax.numpy as jnp

    *lead, s, d = x.shape
    hd = d // heads

    def split(t):  # [..., s, d] -> [..., heads, s, hd]
        return jnp.swapaxes(t.reshape(*lead, s, heads, hd), -2, -3)

    q, k, v = split(x @ wq + bq), split(x @ wk + bk), split(x @ wv + bv)
    scores = jnp.einsum("...qe,...ke->...qk", q, k) * (1.0 / np.sqrt(hd))
    ctx = jnp.einsum("...qk,...ke->...qe", jax.nn.softmax(scores, axis=-1), v)
    return jnp.swapaxes(ctx, -2, -3).reshape(*lead, s, d) @ wo + bo


def transformer_block() -> Model:
    import jax

    rng = _rng(5)
    s, d, heads, hidden = 128, 256, 4, 1024
    attn = [t for _ in range(4) for t in _dense_init(rng, d, d)]
    w1, b1 = _dense_init(rng, d, hidden)
    w2, b2 = _dense_init(rng, hidden, d)
    g1, be1, g2, be2 = (_normal(rng, (d,), 0.1) + 1, _normal(rng, (d,), 0.1),
                        _normal(rng, (d,), 0.1) + 1, _normal(rng, (d,), 0.1))
    x = _normal(rng, (s, d))

    def fn(x):
        h = x + _attention(_layer_norm(x, g1, be1, 1e-5), *attn, heads)
        return h + jax.nn.gelu(_layer_norm(h, g2, be2, 1e-5) @ w1 + b1) @ w2 + b2

    flops = 2.0 * s * (4 * d * d + 2 * d * hidden) + 2 * 2.0 * s * s * d
    return Model("transformer_block", "pre-LN transformer encoder block, seq 128, d 256, 4 heads, MLP 1024, gelu",
                 fn, [x], flops=flops)


def elementwise() -> Model:
    import jax
    import jax.numpy as jnp

    x = _normal(_rng(6), (1024, 4096))

    def fn(x):
        y = jnp.tanh(x * 1.5 + 0.5) * jax.nn.sigmoid(x) + jnp.exp(-x * x)
        mean = jnp.mean(y, axis=-1, keepdims=True)
        var = jnp.mean(jnp.square(y - mean), axis=-1, keepdims=True)
        return (y - mean) * (1.0 / jnp.sqrt(var + 1e-5))

    return Model("elementwise", "elementwise chain (tanh, sigmoid, exp) + last-axis normalisation, f32[1024,4096]",
                 fn, [x])


def row_sum() -> Model:
    import jax.numpy as jnp

    x = _normal(_rng(7), (4096, 1024))
    return Model("row_sum", "row-wise sum of f32[4096,1024] (over axis 1)", lambda x: jnp.sum(x, axis=1), [x])


def col_sum() -> Model:
    import jax.numpy as jnp

    x = _normal(_rng(8), (4096, 1024))
    return Model("col_sum", "column-wise sum of f32[4096,1024] (over axis 0)", lambda x: jnp.sum(x, axis=0), [x])


BERT_CONFIG = dict(vocab_size=30522, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                   intermediate_size=1024, max_position_embeddings=512, hidden_act="gelu")
BERT_SEQ = 128


def bert() -> Model:
    """transformers' BertModel (L4, H256, A4: the size of BERT-mini), random weights, seq 128."""
    import jax
    import jax.numpy as jnp
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.BertConfig(**BERT_CONFIG)
    module = transformers.BertModel(config, add_pooling_layer=False).eval()
    p = {k: v.detach().numpy().copy() for k, v in module.state_dict().items()}
    eps = config.layer_norm_eps
    heads = config.num_attention_heads
    ids = _rng(9).integers(0, config.vocab_size, (1, BERT_SEQ)).astype(np.int32)

    def linear(prefix):  # torch keeps (out, in); the port multiplies by (in, out)
        return p[prefix + ".weight"].T.copy(), p[prefix + ".bias"]

    def fn(input_ids):
        e = "embeddings."
        x = jnp.take(p[e + "word_embeddings.weight"], input_ids, axis=0)
        x = x + p[e + "position_embeddings.weight"][: input_ids.shape[1]] + p[e + "token_type_embeddings.weight"][0]
        x = _layer_norm(x, p[e + "LayerNorm.weight"], p[e + "LayerNorm.bias"], eps)
        for i in range(config.num_hidden_layers):
            layer = f"encoder.layer.{i}."
            qkv = [t for name in ("query", "key", "value") for t in linear(layer + "attention.self." + name)]
            a = _attention(x, *qkv, *linear(layer + "attention.output.dense"), heads)
            x = _layer_norm(x + a, p[layer + "attention.output.LayerNorm.weight"],
                            p[layer + "attention.output.LayerNorm.bias"], eps)
            w1, b1 = linear(layer + "intermediate.dense")
            w2, b2 = linear(layer + "output.dense")
            h = jax.nn.gelu(x @ w1 + b1, approximate=False) @ w2 + b2
            x = _layer_norm(x + h, p[layer + "output.LayerNorm.weight"], p[layer + "output.LayerNorm.bias"], eps)
        return x

    class Wrapped(torch.nn.Module):  # input_ids -> last_hidden_state, as the JAX port returns
        def __init__(self):
            super().__init__()
            self.bert = module

        def forward(self, input_ids):
            return self.bert(input_ids=input_ids.long()).last_hidden_state

    with torch.inference_mode():
        want = Wrapped()(torch.from_numpy(ids)).numpy()
    got = np.asarray(jax.jit(fn)(ids))
    err = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
    if not err < 1e-4:
        raise AssertionError(f"the JAX port of BertModel disagrees with transformers: relative error {err:.2e}")
    d, s, inter, layers = config.hidden_size, BERT_SEQ, config.intermediate_size, config.num_hidden_layers
    flops = layers * (2.0 * s * (4 * d * d + 2 * d * inter) + 2 * 2.0 * s * s * d)
    return Model("bert", "transformers BertModel, L4 H256 A4 I1024 (BERT-mini size), random weights, 1x128 tokens",
                 fn, [ids], flops=flops, tolerance=1e-3, torch_module=Wrapped,
                 notes=[f"JAX port checked against transformers' module: relative error {err:.1e}"])


MODELS: dict[str, Callable[[], Model]] = {
    f.__name__: f
    for f in (gemm_f32, gemm_bf16, mlp, resnet_block, resnet_down, transformer_block, elementwise, row_sum,
              col_sum, bert)
}


def build(name: str) -> Model:
    """The model called `name` (see MODELS), its inputs on 64-byte boundaries."""
    try:
        model = MODELS[name]()
    except KeyError:
        raise ValueError(f"unknown model '{name}'; models: {', '.join(MODELS)}") from None
    model.inputs = [aligned(a) for a in model.inputs]
    return model


ALIGNMENT = 64


def aligned(array: np.ndarray, alignment: int = ALIGNMENT) -> np.ndarray:
    """A copy of `array` starting on an `alignment`-byte boundary.

    XLA reads a numpy argument in place only on a 64-byte boundary and
    copies it otherwise (the row sum's 16 MB input: 0.18 ms per call
    aligned, 1.0-1.2 ms at numpy's usual 16-byte offsets), so where numpy
    happens to place an input would decide XLA's numpy-path times.
    """
    raw = np.empty(array.nbytes + alignment, np.uint8)
    start = -raw.ctypes.data % alignment
    out = raw[start:start + array.nbytes].view(array.dtype).reshape(array.shape)
    out[...] = array
    return out
