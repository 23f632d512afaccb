"""oxla.importers.torch: torch.export graphs as StableHLO, compiled for the CPU and compared with torch eager.

The models are checked in the default export and in its Core ATen form
(`run_decompositions()`), which reach different translations; each operator
family module is checked in the default form, and also in the Core ATen form
where that one uses operators the rest do not. Float results must match
within rtol 1e-4; integer and boolean results exactly.
"""

from __future__ import annotations

import importlib
import math
import sys

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

import oxla  # noqa: E402
from oxla.importers import CompiledModel, UnsupportedOperatorsError  # noqa: E402
from oxla.importers.torch import OPS, coverage_rows, import_torch  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5


def compiled(model, *args, form: str = "default", **options) -> CompiledModel:
    """The model exported with `args` (in the default or Core ATen form), imported and compiled for llvm-cpu."""
    if form == "default" and not options.get("dynamic_shapes"):
        return CompiledModel(import_torch(model, *args, **options), "llvm-cpu", None)
    ep = torch.export.export(model, args, dynamic_shapes=options.pop("dynamic_shapes", None))
    if form == "core":
        ep = ep.run_decompositions()
    return CompiledModel(import_torch(ep, **options), "llvm-cpu", None)


def assert_matches(got, want) -> None:
    """Same structure; floats within rtol 1e-4, everything else exactly."""
    got_leaves, got_spec = torch.utils._pytree.tree_flatten(got)
    want_leaves, want_spec = torch.utils._pytree.tree_flatten(want)
    assert got_spec == want_spec
    for g, w in zip(got_leaves, want_leaves):
        if isinstance(w, torch.Tensor):
            assert isinstance(g, torch.Tensor)
            w = w.detach()
            if w.dtype.is_floating_point:
                torch.testing.assert_close(g, w, rtol=RTOL, atol=ATOL, equal_nan=True)
            else:
                assert g.dtype == w.dtype and torch.equal(g, w), (g, w)
        else:
            assert g == w


def check(model, *args, forms=("default", "core")) -> None:
    """The model compiled by oxla gives torch's eager results, in each export form."""
    model.eval()
    with torch.no_grad():
        want = model(*args)
    for form in forms:
        assert_matches(compiled(model, *args, form=form)(*args), want)


class Lambda(nn.Module):
    """A module around a function of tensors (and the modules it calls, registered so that eval() reaches them)."""

    def __init__(self, fn, *modules):
        super().__init__()
        self.fn, self.parts = fn, nn.ModuleList(modules)

    def forward(self, *args):
        return self.fn(*args)


# Models -----------------------------------------------------------------------------------------------------------

def test_mlp():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.GELU(), nn.Dropout(0.5),
                          nn.Linear(16, 4), nn.Softmax(dim=-1))
    check(model, torch.randn(3, 8))


class CNN(nn.Module):
    """Convolutions with batch norm, pooling and a classifier."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=2, bias=False), nn.BatchNorm2d(8), nn.SiLU(),
            nn.AvgPool2d(2), nn.Conv2d(8, 16, 1), nn.ReLU6())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(16, 5)

    def forward(self, x):
        return self.head(torch.flatten(self.pool(self.features(x)), 1))


def _randomize_batch_norms(model: nn.Module) -> None:
    """Non-trivial running statistics, so that eval-mode batch norm does something."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)


def test_cnn_with_batch_norm():
    torch.manual_seed(0)
    model = CNN()
    _randomize_batch_norms(model)
    check(model, torch.randn(2, 3, 16, 16))


def test_transformer_encoder_layer():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.1, batch_first=True, norm_first=False)
    x = torch.randn(2, 5, 16)
    padding = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
    check(Lambda(lambda x, m: layer(x, src_key_padding_mask=m), layer), x, padding)


def test_causal_transformer_encoder_layer():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 2, 32, batch_first=True, norm_first=True, activation="gelu")
    mask = nn.Transformer.generate_square_subsequent_mask(6)
    check(Lambda(lambda x: layer(x, src_mask=mask, is_causal=True), layer), torch.randn(2, 6, 16))


class SequenceModel(nn.Module):
    """Token and position embeddings, a convolution over time, layer norm, masked mean pooling."""

    def __init__(self, vocab=50, dim=16, classes=3):
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim, padding_idx=0)
        self.positions = nn.Embedding(32, dim)
        self.conv = nn.Conv1d(dim, dim, 3, padding=1)
        self.norm = nn.LayerNorm(dim)
        self.out = nn.Linear(dim, classes)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1]).unsqueeze(0)
        h = self.tokens(ids) + self.positions(positions)
        h = h + F.gelu(self.conv(h.transpose(1, 2)).transpose(1, 2), approximate="tanh")
        h = self.norm(h)
        mask = (ids != 0).unsqueeze(-1).to(h.dtype)
        pooled = (h * mask).sum(1) / mask.sum(1).clamp(min=1)
        return F.log_softmax(self.out(pooled), dim=-1), pooled.argmax(-1)


def test_sequence_model_with_embeddings():
    torch.manual_seed(0)
    ids = torch.tensor([[5, 3, 9, 1, 0, 0], [7, 7, 2, 4, 8, 1]])
    check(SequenceModel(), ids)


# Operator families ------------------------------------------------------------------------------------------------

def _elementwise(x, y, i):
    """Arithmetic, math and comparisons of float and integer tensors, with scalars and broadcasting."""
    nan = torch.where(x > 1, float("nan"), x)
    return (x + y * 2, x - 1.5, 3 - x, x * y, x / (y.abs() + 1), torch.div(i, 3, rounding_mode="floor"),
            torch.div(i, -3, rounding_mode="trunc"), i // 2, i % 3, torch.fmod(x, 0.7), torch.remainder(x, -0.7),
            x ** 2, x.abs() ** 0.5, torch.pow(x.abs() + 1, y), 2 ** y, x.exp(), (x.abs() + 1).log(),
            torch.log1p(x.abs()), torch.expm1(x), torch.rsqrt(x.abs() + 1), torch.sqrt(x.abs()), x.sin(), x.cos(),
            x.tanh(), x.sigmoid(), torch.erf(x), x.neg(), x.sign(), x.floor(), x.ceil(), (x * 4).round(), x.trunc(),
            torch.reciprocal(y + 3), torch.clamp(x, -0.5, 0.5), torch.clamp(i, min=0), x.clamp(max=y),
            torch.minimum(x, y), torch.maximum(x, y), torch.atan2(x, y), torch.log2(x.abs() + 1),
            torch.exp2(x), x > y, x <= 0.1, i == 2, i != y.long(), (x > 0) & (y > 0), (x > 0) | (y > 0),
            torch.logical_xor(x > 0, y > 0), ~(x > 0), torch.logical_not(i), torch.where(x > 0, x, y),
            torch.where(x > y, 1.0, 0.0), x.masked_fill(x < 0, -1.0), torch.isnan(nan), torch.isinf(1 / (x * 0)),
            i.float() / 2, i + 0.5, i * True, torch.lerp(x, y, 0.3), torch.addcmul(x, x, y, value=0.5),
            torch.bitwise_and(i, 6), torch.bitwise_or(i, 1), torch.bitwise_xor(i, 3), i ** 2, torch.atan(x),
            torch.sinh(x), torch.asinh(x), torch.fmax(nan, y), torch.fmin(nan, x.flip(0)), torch.max(x, y),
            torch.hypot(x, y), torch.xlogy(x.abs(), y.abs() + 1), torch.special.erfc(x), torch.sgn(x), torch.square(i),
            torch.frac(x * 3), torch.logit(x.sigmoid()), torch.logit(x.abs(), eps=0.1), torch.nan_to_num(nan),
            torch.nan_to_num(1 / (x * 0), nan=1.0, posinf=5.0), F.threshold(x, 0.1, -2.0), F.hardshrink(x, 0.3),
            F.softshrink(x, 0.3))


def test_elementwise():
    torch.manual_seed(0)
    x, y = torch.randn(3, 4), torch.randn(4)
    i = torch.arange(-6, 6).reshape(3, 4)
    check(Lambda(_elementwise), x, y, i, forms=("default",))


def _activations(x):
    """Activation functions and softmax."""
    return (F.relu(x), F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), F.mish(x), F.hardtanh(x, -0.5, 0.7),
            F.relu6(x * 4), F.leaky_relu(x, 0.2), F.elu(x), F.selu(x), F.celu(x, 0.5), F.hardsigmoid(x),
            F.hardswish(x), F.softplus(x, beta=2, threshold=1), F.logsigmoid(x), F.softsign(x), F.glu(x, -1),
            F.softmax(x, dim=0), F.log_softmax(x, dim=-1), torch.softmax(x.double(), -1).float(),
            F.prelu(x, torch.tensor([0.1, 0.2, 0.3])), torch.tanh(x), torch.sigmoid(x))


def test_activations():
    torch.manual_seed(0)
    check(Lambda(_activations), torch.randn(2, 3, 4) * 3, forms=("default",))


def _reductions(x, i, b):
    """Reductions over dimensions, all of them, with keepdim; arg reductions; cumulative ones."""
    return (x.sum(), x.sum(1), x.sum((0, 2), keepdim=True), x.mean(-1), x.mean(), x.amax(1), x.amin((1, 2)),
            x.max(), x.min(), x.max(1), x.min(2, keepdim=True), x.argmax(), x.argmax(1), x.argmin(-1, keepdim=True),
            x.var(1), x.var(1, unbiased=False), x.std(), torch.var_mean(x, 2, correction=0), x.prod(2),
            i.sum(0), i.prod(), b.any(), b.any(1), b.all(0), x.logsumexp(1), torch.linalg.vector_norm(x, dim=-1),
            torch.linalg.vector_norm(x, ord=1), torch.norm(x, dim=1), x.cumsum(1), i.cumsum(0), x.cumprod(-1),
            i.float().mean(1), x.std(2, keepdim=True), torch.count_nonzero(i, 1), torch.aminmax(x, dim=1),
            torch.sort(x, 1), torch.sort(torch.where(x > 1, float("nan"), x), 0, descending=True),
            torch.sort(i, stable=True), torch.argsort(x, -1, True), torch.topk(x, 2),
            torch.topk(i, 1, 0, largest=False))


def test_reductions():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 4)
    i = torch.randint(-3, 4, (3, 4))
    check(Lambda(_reductions), x, i, x > 0.5)


def _shapes(x, y):
    """Views, permutations, joins and splits, slices, padding."""
    a, b = x.split([1, 2], dim=1)
    c, d = torch.chunk(x, 2, dim=-1)
    return (x.view(6, 4), x.reshape(-1), x.permute(2, 0, 1), x.transpose(0, 2), x.mT,
            x.unsqueeze(1), x[:, :1].squeeze(1), x.flatten(), x.unflatten(-1, (2, 2)), x.expand(3, 2, 3, 4),
            y.expand_as(x), torch.cat([x, x * 2], 1), torch.stack([x, x + 1], -1), a, b, c, d,
            x.unbind(1)[2], x[:, 1:3, ::2], x[..., -1], x[1], x[:, -2:], x.narrow(2, 1, 2), x.repeat(2, 1, 2),
            x.flip(0, 2), x.roll(1, 2), x.roll((1, -1), (0, 1)), F.pad(x, (1, 2)), F.pad(x, (1, 1, 2, 0), value=3.0),
            F.pad(x, (-1, 1)), F.pad(x.unsqueeze(0), (2, 1, 1, 1), mode="reflect"),
            F.pad(x.unsqueeze(0), (1, 2, 0, 1), mode="replicate"), F.pad(x.unsqueeze(0), (1, 2, 2, 0), mode="circular"),
            x.clone().contiguous().detach(), torch.tile(y, (2, 1)), x.repeat_interleave(2, dim=1),
            torch.movedim(x, 0, -1), torch.tril(x[0]), torch.triu(x[0], 1), torch.tril(x, -1),
            F.pixel_shuffle(x.reshape(1, 4, 3, 2), 2), F.pixel_unshuffle(x.reshape(1, 1, 4, 6), 2),
            torch.unsafe_chunk(x, 2, 2)[1])


def test_shapes():
    torch.manual_seed(0)
    check(Lambda(_shapes), torch.randn(2, 3, 4), torch.randn(4))


def _indexing(x, ids, idx, src):
    """Embedding, advanced indexing, gather and scatter in their forms, index_put, scatters of slices."""
    table = torch.arange(40.0).reshape(10, 4)
    y = x.clone()
    y[idx] = 0.5
    z = x.clone()
    z[:, idx] = src[:, :2]
    w = x.clone()
    w[0, 1:3] = 7.0
    v = x.clone()
    v[:, 0] = src[:, 0]
    u = x.clone()
    u.index_put_((idx, torch.tensor([0, 2])), torch.tensor([1.0, 2.0]), accumulate=True)
    return (F.embedding(ids, table), x[idx], x[:, idx], x[idx, idx], x[[0, -1]], x[:, [[0], [2]]],
            x[idx.unsqueeze(1), torch.tensor([1, 3])], x[..., idx], torch.index_select(x, 1, idx),
            torch.gather(x, 1, torch.tensor([[0, 0], [1, 3], [2, 1]])),
            torch.scatter(x, 1, torch.tensor([[0, 1], [2, 3], [1, 0]]), src[:, :2]),
            torch.scatter(x, 0, torch.tensor([[2, 1, 0, 0]]), 9.0),
            torch.scatter_add(x, 1, torch.tensor([[0, 0], [1, 1], [3, 3]]), src[:, :2]),
            torch.scatter_reduce(x, 1, torch.tensor([[0, 0], [1, 1], [3, 3]]), src[:, :2], "amax",
                                 include_self=False),
            y, z, w, v, u, x.index_add(0, idx, src[:2]), x.index_copy(1, torch.tensor([3, 0]), src[:, :2]),
            torch.select_scatter(x, src[:, 1], 1, 2), torch.slice_scatter(x, src[:, :2], 1, 0, 4, 2), torch.diagonal(x),
            torch.diagonal(x, 1), torch.diagonal(x, -1), F.one_hot(idx, 4))


def test_indexing():
    torch.manual_seed(0)
    x, src = torch.randn(3, 4), torch.randn(3, 4)
    check(Lambda(_indexing), x, torch.tensor([[1, 2], [9, 0]]), torch.tensor([2, 0]), src, forms=("default",))


def _creation(x, i):
    """Tensors made from shapes and values, and dtype conversions."""
    return (torch.zeros(2, 3), torch.ones_like(x), torch.full((2,), 7, dtype=torch.int32), torch.full_like(x, 0.25),
            x.new_zeros(3), x.new_ones((1, 2)), x.new_full((2,), -1.0), 
            torch.zeros(2).fill_(3.0), torch.arange(5), torch.arange(1, 7, 2), torch.arange(0.5, 3.0, 0.5),
            torch.arange(x.shape[1], dtype=torch.float32), torch.eye(3), torch.eye(2, 4, dtype=torch.int64),
            torch.scalar_tensor(4.5), x.to(torch.int32), i.to(torch.float32), (x > 0).float(), i.bool(),
            x.type_as(i), x.double().sum().float(), x.half().float(), i.to(torch.int8), x.long(),
            torch.zeros_like(i, dtype=torch.bool), torch.triu(torch.ones(3, 3, dtype=torch.bool)))


def test_creation_and_conversion():
    torch.manual_seed(0)
    check(Lambda(_creation), torch.randn(2, 3) * 3, torch.arange(-3, 3), forms=("default",))


def _normalization(x, seq):
    """Group, instance, layer and RMS norm with and without affine parameters."""
    return (F.group_norm(x, 2, torch.linspace(0.5, 1.5, 4), torch.linspace(-1, 1, 4)), F.group_norm(x, 4),
            F.instance_norm(x), F.layer_norm(seq, (3, 5)), F.layer_norm(seq, (5,), torch.ones(5) * 2),
            F.rms_norm(seq, (5,), torch.linspace(0.5, 1.5, 5), 1e-6),
            F.batch_norm(x, torch.zeros(4) + 0.1, torch.ones(4) * 2, training=False))


def test_normalization():
    torch.manual_seed(0)
    check(Lambda(_normalization), torch.randn(2, 4, 3, 3), torch.randn(2, 3, 5))


def _convolutions(x1, x2, x3, w1, w2, wt, w3):
    """1-, 2- and 3-d convolutions: strides, padding (also "same"), dilation, groups, transposed."""
    return (F.conv1d(x1, w1, stride=2, padding=1), F.conv1d(x1, w1, padding="same", dilation=2),
            F.conv2d(x2, w2, stride=(2, 1), padding=(1, 0)), F.conv2d(x2, w2[:, :2], groups=2, bias=torch.ones(4)),
            F.conv_transpose2d(x2, wt, stride=2, padding=1, output_padding=1),
            F.conv_transpose2d(x2, wt[:, :2], groups=2, stride=(1, 2), dilation=2), F.conv3d(x3, w3, padding=1),
            F.conv1d(x1[0], w1))


def test_convolutions():
    torch.manual_seed(0)
    check(Lambda(_convolutions), torch.randn(2, 4, 9), torch.randn(2, 4, 7, 6), torch.randn(1, 2, 4, 4, 4),
          torch.randn(3, 4, 3), torch.randn(4, 4, 3, 3), torch.randn(4, 3, 3, 2), torch.randn(3, 2, 3, 3, 3),
          forms=("default",))


def _pooling(x, x1):
    """Max, average and adaptive pooling (even and uneven windows), ceil mode, upsampling."""
    return (F.max_pool2d(x, 3, 2, 1), F.max_pool2d(x, 2, ceil_mode=True), F.max_pool2d(x, 3, 1, dilation=2),
            F.avg_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
            F.avg_pool2d(x, 2, ceil_mode=True), F.avg_pool2d(x, 2, divisor_override=3), F.adaptive_avg_pool2d(x, 1),
            F.adaptive_avg_pool2d(x, (3, 2)), F.adaptive_avg_pool2d(x, (4, 5)), F.adaptive_max_pool2d(x, (7, 1)),
            F.max_pool1d(x1, 2), F.avg_pool1d(x1, 3, 1, 1), F.adaptive_avg_pool1d(x1, 4),
            F.interpolate(x, scale_factor=2, mode="nearest"), F.interpolate(x, size=(5, 9), mode="bilinear"),
            F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True),
            F.interpolate(x1, size=11, mode="linear"), F.max_pool2d(x[0], 2))


def test_pooling_and_upsampling():
    torch.manual_seed(0)
    check(Lambda(_pooling), torch.randn(2, 3, 7, 10), torch.randn(2, 3, 9))


def _matmuls(a, b, v, batch, bias):
    """Every matrix product form, einsum and scaled_dot_product_attention."""
    q, k, val = batch, batch.flip(1), batch[:, :, :3] * 2
    mask = torch.ones(4, 4, dtype=torch.bool).tril()
    return (a @ b, torch.mm(a, b), torch.matmul(v, b), torch.matmul(a, b[:, 0]), v @ v, torch.bmm(batch, batch),
            batch @ b[:4], torch.matmul(batch.unsqueeze(0), batch), torch.addmm(bias, a, b, beta=0.5, alpha=2),
            torch.baddbmm(batch, batch, batch, alpha=0.5), F.linear(a, b.T, bias), torch.einsum("ij,jk->ik", a, b),
            torch.einsum("bij,bkj->bik", batch, batch), 
            torch.einsum("ij->j", a), torch.einsum("...ij,jk", batch, b[:4]),
            F.scaled_dot_product_attention(q, k, val), F.scaled_dot_product_attention(q, k, val, is_causal=True),
            F.scaled_dot_product_attention(q, k, val, attn_mask=mask),
            F.scaled_dot_product_attention(q, k, val, attn_mask=torch.linspace(-1, 1, 16).reshape(4, 4), scale=0.3))


def test_matmuls_and_attention():
    torch.manual_seed(0)
    check(Lambda(_matmuls), torch.randn(4, 6), torch.randn(6, 5), torch.randn(6), torch.randn(3, 4, 4),
          torch.randn(5), forms=("default",))


def test_grouped_query_attention():
    torch.manual_seed(0)
    q, k, v = torch.randn(1, 4, 3, 8), torch.randn(1, 2, 3, 8), torch.randn(1, 2, 3, 8)
    check(Lambda(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)), q, k, v, forms=("default",))


aten = torch.ops.aten


def _overloads(x, xp, i, img, vol, seq):
    """ATen overloads called directly: the forms models reach through other spellings or decompositions."""
    index = torch.tensor([[0, 0], [1, 1], [3, 3]])
    unit = x.clamp(-0.9, 0.9)
    return (
        aten.__and__.Scalar(i, 3), aten.__or__.Scalar(i, 8), aten.__xor__.Scalar(i, 5), aten.__xor__.Tensor(i, i * 3),
        aten.__lshift__.Scalar(i.abs(), 2), aten.__rshift__.Scalar(i, 1), aten.__lshift__.Tensor(i.abs(), i.abs() % 3),
        aten.__rshift__.Tensor(i, i.abs() % 3), aten.bitwise_left_shift.Tensor(i.abs(), i.abs() % 3),
        aten.bitwise_right_shift.Tensor_Scalar(i, 1), aten.bitwise_or.Tensor(i, i * 2),
        aten.bitwise_xor.Tensor(i, 7 - i), aten._adaptive_avg_pool3d.default(vol, [2, 2, 2]),
        aten.adaptive_avg_pool3d.default(vol, [1, 3, 2]), aten.adaptive_max_pool1d.default(seq, [4])[0],
        aten.acos.default(unit), aten.acosh.default(xp + 1), aten.asin.default(unit), aten.atanh.default(unit),
        aten.cosh.default(x), aten.tan.default(x), aten.addcdiv.default(x, x, xp, value=0.5),
        aten.addmv.default(x[:, 0], x, x[0], beta=2, alpha=0.5), aten.all.default(i > -7),
        aten.all.dims(i > 0, [0, 1]), aten.any.dims(i > 4, [1], True), aten.arange.start(2, 9),
        aten.avg_pool3d.default(vol, [2, 2, 2], [1, 2, 2], [1, 0, 0]), aten.broadcast_to.default(x[0], [2, 3, 4]),
        aten.clamp_max.Tensor(x, x * 0.5), aten.clamp_min.default(x, 0.1), aten.clip.Tensor(x, -xp * 0.3, xp * 0.3),
        aten.concat.default([x, x], 0), aten.conv2d.padding(img, torch.ones(3, 2, 3, 3), None, [1], "same", [1], 1),
        aten.conv_transpose1d.default(seq, torch.ones(2, 3, 3), None, [2]),
        aten.conv_transpose3d.input(vol, torch.ones(2, 1, 2, 2, 2) * 0.1), aten.digamma.default(xp),
        aten.lgamma.default(xp), aten.erfinv.default(unit), aten.div.Scalar(x, 3),
        aten.div.Scalar_mode(i, 4, rounding_mode="floor"), aten.dot.default(x[0], x[1]),
        aten.eq.Tensor(i, i.flip(0)), aten.ge.Tensor(x, x.flip(1)), aten.lt.Tensor(i, 0 * i),
        aten.le.Tensor(i, i.flip(1)), aten.fix.default(x * 3), aten.floor_divide.Scalar(i, -4),
        aten.fmod.Tensor(i, i.abs() + 1), aten.remainder.Tensor(i, i.abs() + 2),
        aten.remainder.Scalar_Tensor(7, i.abs() + 2), aten.isfinite.default(x / (x > 0).float()),
        aten.isneginf.default(-1 / (x * 0)), aten.isposinf.default(1 / (x * 0)), aten.lerp.Tensor(x, x * 2, xp * 0.1),
        aten.log10.default(xp), aten.log_sigmoid_forward.default(x)[0], aten.logical_or.default(i, x > 0),
        aten.masked_fill.Tensor(x, x > 0, torch.tensor(2.0)), aten.max_pool1d_with_indices.default(seq, [2])[0],
        aten.max_pool3d.default(vol, [2, 2, 2]), aten.movedim.intlist(vol, [0, 1], [3, 2]), aten.mv.default(x, x[0]),
        aten.reflection_pad1d.default(seq, [2, 1]), aten.reflection_pad2d.default(img, [1, 2, 2, 1]),
        aten.reflection_pad3d.default(vol, [1, 1, 0, 1, 1, 0]), aten.replication_pad1d.default(seq, [3, 1]),
        aten.replication_pad2d.default(img, [0, 2, 1, 1]), aten.replication_pad3d.default(vol, [1, 0, 0, 2, 1, 1]),
        aten.round.decimals(x * 10, decimals=1), aten.rsub.Tensor(x, xp, alpha=2),
        aten.scatter.reduce(x, 1, index, xp[:, :2], reduce="multiply"),
        aten.scatter.value_reduce(x, 1, index, 2.0, reduce="add"), aten.split.Tensor(x, 3, 1)[1],
        aten.squeeze.default(x[None, :, None]), aten.std.default(x), aten.var.default(x, False),
        aten.std_mean.correction(x, [0], correction=0)[0], aten.sub.Scalar(x, 2, alpha=3),
        aten.swapaxes.default(vol, 1, -1), aten.t.default(x), aten.tensor_split.sections(x, 3, 1)[2],
        aten.to.other(i, x), aten.true_divide.Tensor(i, 4), aten.upsample_bilinear2d.default(img, [7, 9], False),
        aten.upsample_bilinear2d.default(img, [8, 12], True, 2.0, 2.0),
        aten.upsample_linear1d.default(seq, [13], False),
        aten.upsample_nearest1d.default(seq, [5]), aten.upsample_nearest1d.vec(seq, None, [2.0]),
        aten.upsample_nearest2d.default(img, [7, 13]), aten.upsample_nearest3d.default(vol, [5, 8, 3]),
        aten.upsample_nearest3d.vec(vol, [8, 8, 8], None), aten.upsample_trilinear3d.default(vol, [6, 5, 3], False),
        aten.upsample_trilinear3d.vec(vol, None, True, [2.0, 1.5, 1.0]), aten.where.ScalarOther(x > 0, x, 0.5),
        aten.where.ScalarSelf(x > 0, -1.0, x), aten.zero.default(x),
        aten._safe_softmax.default(torch.where(i > 3, x, -math.inf), 1),
        aten._prelu_kernel.default(img, torch.tensor([0.1, 0.3]).reshape(2, 1, 1)),
        aten.native_dropout.default(x, 0.5, False)[0], aten.clone.default(x),
        aten._unsafe_index.Tensor(x, [None, torch.tensor([3, 1])]),
        aten._unsafe_index_put.default(x, [torch.tensor([1])], torch.tensor(5.0)),
        aten.native_batch_norm.default(img, None, None, torch.zeros(2), torch.ones(2), False, 0.1, 1e-5)[0],
        aten._native_batch_norm_legit.default(img, torch.ones(2), None, torch.zeros(2) + 0.5, torch.ones(2) * 2, False,
                                              0.1, 1e-5)[0],
        aten._scaled_dot_product_flash_attention_for_cpu.default(img, img, img)[0])


def test_operator_overloads_called_directly():
    torch.manual_seed(0)
    x = torch.randn(3, 4)
    check(Lambda(_overloads), x, x.abs() + 0.5, torch.arange(-6, 6).reshape(3, 4), torch.randn(1, 2, 4, 6),
          torch.randn(1, 2, 4, 4, 4), torch.randn(1, 2, 8), forms=("default",))


def test_every_aten_operator_in_the_table_exists():
    for name in OPS:
        if name.startswith("aten."):
            _, op, overload = name.split(".")
            assert isinstance(getattr(getattr(torch.ops.aten, op), overload), torch._ops.OpOverload), name


@pytest.mark.parametrize("dtype, tolerance", [(torch.bfloat16, 1.6e-2), (torch.float64, 1e-12)])
def test_other_float_dtypes(dtype, tolerance):
    """bf16 within its own precision (8 bits of mantissa), f64 kept as f64."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.LayerNorm(8), nn.Linear(8, 3)).eval().to(dtype)
    x = torch.randn(2, 4, dtype=dtype)
    out = compiled(model, x)(x)
    assert out.dtype == dtype
    torch.testing.assert_close(out, model(x).detach(), rtol=tolerance, atol=tolerance)


# Calling convention, options and errors ---------------------------------------------------------------------------

def _mlp() -> nn.Module:
    """A small seeded MLP in eval mode."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)).eval()


def test_compile_model_returns_torch_tensors_and_takes_numpy():
    model, x = _mlp(), torch.randn(3, 4)
    run = oxla.compile_model(model, x)
    out = run(x)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float32
    torch.testing.assert_close(out, model(x).detach(), rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(run(x.numpy()), model(x).detach(), rtol=RTOL, atol=ATOL)


def test_parameters_are_arguments_fed_with_their_current_values():
    model, x = _mlp(), torch.randn(3, 4)
    imported = import_torch(model, x)
    assert imported.input_names == ["0.weight", "0.bias", "2.weight", "2.bias", "input"]
    assert "tensor<8x4xf32>" in str(imported.module.body.operations[0].type)
    run = CompiledModel(imported, "llvm-cpu", None)
    with torch.no_grad():
        model[0].weight.mul_(-2.0)
    torch.testing.assert_close(run(x), model(x).detach(), rtol=RTOL, atol=ATOL)


def test_parameters_as_constants():
    model, x = _mlp(), torch.randn(3, 4)
    imported = import_torch(model, (x,), params_as="constants")
    assert imported.input_names == ["input"]
    assert str(imported.module.body.operations[0].type).startswith("(tensor<3x4xf32>) ->")
    torch.testing.assert_close(CompiledModel(imported, "llvm-cpu", None)(x), model(x).detach(), rtol=RTOL,
                               atol=ATOL)
    with pytest.raises(ValueError, match="params_as"):
        import_torch(model, x, params_as="globals")


def test_outputs_keep_their_structure_and_names():
    model = Lambda(lambda x: {"double": x * 2, "pair": (x.sum(), x.shape[0])})
    x = torch.randn(3)
    imported = import_torch(model, x)
    assert imported.input_names == ["args_0"] and imported.output_names == ["double", "pair.0"]
    out = CompiledModel(imported, "llvm-cpu", None)(x)
    assert set(out) == {"double", "pair"} and out["pair"][1] == 3
    torch.testing.assert_close(out["double"], x * 2)


def test_ops_are_located_at_the_model_source():
    imported = import_torch(_mlp(), torch.randn(3, 4))
    text = oxla.ir.to_text(imported.module, debug_info=True)
    assert "linear" in text and "torch/nn/modules/linear.py" in text


def test_mismatched_example_arguments_raise_value_error():
    model = _mlp()
    with pytest.raises(ValueError, match="torch.export.export failed"):
        import_torch(model, torch.randn(3, 5))
    with pytest.raises(ValueError, match="do not match"):
        import_torch(model, torch.randn(3, 4), torch.randn(3, 4))
    with pytest.raises(ValueError, match="do not match"):
        import_torch(model)
    exported = torch.export.export(model, (torch.randn(3, 4),))
    with pytest.raises(ValueError, match="input"):
        import_torch(exported, torch.randn(2, 4))
    with pytest.raises(ValueError, match="dynamic_shapes"):
        import_torch(exported, dynamic_shapes=({0: torch.export.Dim("b")},))


def test_mismatched_call_arguments_raise_value_error():
    model, x = _mlp(), torch.randn(3, 4)
    run = CompiledModel(import_torch(model, x), "llvm-cpu", None)
    with pytest.raises(ValueError, match=r"input: expected float32\[3, 4\], got float32\[2, 4\]"):
        run(torch.randn(2, 4))
    with pytest.raises(ValueError, match="float64"):
        run(x.double())
    with pytest.raises(ValueError, match="structure"):
        run(x, x)
    with pytest.raises(ValueError, match="unexpected keyword"):
        run(x, scale=2)


def test_python_constants_in_the_signature_must_match():
    model = Lambda(lambda x, k: x * k)
    run = CompiledModel(import_torch(model, torch.randn(2), 3), "llvm-cpu", None)
    torch.testing.assert_close(run(torch.ones(2), 3), torch.full((2,), 3.0))
    with pytest.raises(ValueError, match="constant 3"):
        run(torch.ones(2), 4)


class _Unsupported(nn.Module):
    """Two operators without a translation, one of them twice."""

    def forward(self, x):
        a = torch.special.bessel_j0(x)
        b = torch.special.bessel_j0(x * 2)
        return a + b + torch.cummax(x, 0).values


def test_unsupported_operators_are_all_listed_before_lowering(monkeypatch):
    import oxla.importers.torch as importer
    monkeypatch.setattr(importer, "_lower_graph", lambda *a: pytest.fail("lowering started"))
    with pytest.raises(UnsupportedOperatorsError) as info:
        import_torch(_Unsupported(), torch.randn(5))
    error = info.value
    assert set(error.operators) == {"aten.special_bessel_j0.default", "aten.cummax.default"}
    assert len(error.operators["aten.special_bessel_j0.default"]) == 2
    assert all("test_torch.py:" in place and "_Unsupported" in place
               for places in error.operators.values() for place in places)
    assert "aten.special_bessel_j0.default x2 at test_torch.py:" in str(error)
    assert isinstance(error, NotImplementedError)


def test_training_mode_is_reported_as_unsupported():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5), nn.BatchNorm1d(4)).train()
    with pytest.raises(UnsupportedOperatorsError) as info:
        import_torch(model, torch.randn(3, 4))
    text = str(info.value)
    assert "aten.native_dropout.default (training mode: call model.eval()" in text
    assert "aten._native_batch_norm_legit_functional.default (training mode: call model.eval()" in text
    assert "<buffer mutation of 2.running_mean: compiled functions do not update module state>" in text


def test_dynamic_batch():
    torch.manual_seed(0)
    model = _DynamicBatchModel().eval()
    _randomize_batch_norms(model)
    batch = torch.export.Dim("batch", min=1, max=16)
    x, scale = torch.randn(3, 3, 8, 8), torch.randn(3, 1)
    imported = import_torch(model, x, scale, dynamic_shapes=({0: batch}, {0: batch}))
    text = str(imported.module)
    assert "tensor<?x3x8x8xf32>" in text and "stablehlo.get_dimension_size" in text
    run = CompiledModel(imported, "llvm-cpu", None)
    for n in (2, 5):
        x, scale = torch.randn(n, 3, 8, 8), torch.randn(n, 1)
        with torch.no_grad():
            assert_matches(run(x, scale), model(x, scale))
    with pytest.raises(ValueError, match="same dynamic size"):
        run(torch.randn(2, 3, 8, 8), torch.randn(3, 1))
    with pytest.raises(ValueError, match="outside the range"):
        run(torch.randn(17, 3, 8, 8), torch.randn(17, 1))


class _DynamicBatchModel(nn.Module):
    """Layers whose batch size torch.export can keep symbolic, and a size computed from it."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.norm = nn.BatchNorm2d(4)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.linear = nn.Linear(4, 6)
        self.layer_norm = nn.LayerNorm(6)

    def forward(self, x, scale):
        h = self.pool(F.relu(self.norm(self.conv(x)))).flatten(1)
        h = self.layer_norm(self.linear(h)) * scale
        n = x.shape[0]
        out = h.softmax(-1) + torch.zeros(n, 6) + h.sum(-1, keepdim=True)
        return out, h.mean(0), n * 2, n // 2 + 1, torch.arange(n) * 1.5, x[n - 1, 0, 0]


def test_coverage_rows_come_from_the_operator_table():
    rows = coverage_rows()
    translated = [r for r in rows if r["status"] in ("supported", "partial")]
    assert {r["op"] for r in translated} == set(OPS)
    assert len(OPS) >= 200
    assert all(set(r) >= {"op", "status", "note"} for r in rows)
    assert any(r["status"] == "partial" and r["note"] for r in rows)
    assert any(r["status"] == "unsupported" for r in rows)
    for name in ("aten.addmm.default", "aten.convolution.default", "aten._native_batch_norm_legit_no_training.default",
                 "aten.native_layer_norm.default", "aten.native_group_norm.default", "aten.scaled_dot_product_attention"
                 ".default", "aten.index_put.default", "aten.sym_size.int", "aten.gelu.default"):
        assert name in OPS


def test_import_without_torch_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.delitem(sys.modules, "oxla.importers.torch")
    with pytest.raises(ImportError, match=r"pip install 'oxla\[torch\]'"):
        importlib.import_module("oxla.importers.torch")



def test_compile_model_recognises_a_users_module_subclass():
    class Scale(nn.Module):
        def forward(self, x):
            return x * 2.0 + 1.0

    x = torch.randn(2, 3)
    torch.testing.assert_close(oxla.compile_model(Scale().eval(), x)(x), x * 2.0 + 1.0)
