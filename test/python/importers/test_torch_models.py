"""Real architectures from `transformers`, built from tiny configs with random weights (nothing is downloaded),
exported with torch.export, imported by oxla, compiled for the CPU and compared with torch eager; each in the
default export and in its Core ATen form.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from oxla.importers import CompiledModel  # noqa: E402
from oxla.importers.torch import import_torch  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """No hub access: the models are built from their config classes only."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def _bert():
    """A 2-layer BERT with hidden size 32, 2 heads and a 100-token vocabulary; a batch with padding."""
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                     intermediate_size=37, max_position_embeddings=64)
    model = transformers.BertModel(config).eval()
    ids = torch.randint(1, 100, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.long)
    mask[1, 5:] = 0
    return model, ids, mask


def _resnet():
    """A two-stage ResNet with basic blocks and 8/16 channels."""
    torch.manual_seed(0)
    config = transformers.ResNetConfig(num_channels=3, embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1],
                                       layer_type="basic")
    model = transformers.ResNetModel(config).eval()
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
    return model, torch.randn(2, 3, 32, 32)


def _exported(model, args, kwargs, form):
    """The default export, or its Core ATen form."""
    ep = torch.export.export(model, args, kwargs=kwargs)
    return ep.run_decompositions() if form == "core" else ep


def _assert_close(got, want) -> None:
    """Each output field within rtol 1e-4."""
    assert type(got) is type(want)
    for key in want.keys():
        torch.testing.assert_close(got[key], want[key].detach(), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("form", ["default", "core"])
def test_bert(form):
    model, ids, mask = _bert()
    run = CompiledModel(import_torch(_exported(model, (ids,), {"attention_mask": mask}, form)), "llvm-cpu", None)
    assert run.imported.input_names[-2:] == ["input_ids", "attention_mask"]
    assert run.imported.output_names == ["last_hidden_state", "pooler_output"]
    with torch.no_grad():
        _assert_close(run(ids, attention_mask=mask), model(ids, attention_mask=mask))
        other = torch.randint(1, 100, (2, 8))
        _assert_close(run(other, attention_mask=mask), model(other, attention_mask=mask))


@pytest.mark.parametrize("form", ["default", "core"])
def test_resnet(form):
    model, pixels = _resnet()
    run = CompiledModel(import_torch(_exported(model, (pixels,), {}, form)), "llvm-cpu", None)
    with torch.no_grad():
        _assert_close(run(pixels), model(pixels))


def test_bert_with_a_dynamic_batch_imports_with_dynamic_types():
    """The batch stays symbolic through embeddings, attention and the pooler. (Not compiled here: its reshapes
    that split a static dimension next to the dynamic batch are stablehlo.dynamic_reshape, which the pinned
    IREE's input conversion does not lower.)"""
    model, ids, mask = _bert()
    batch = torch.export.Dim("batch", min=1, max=32)
    imported = import_torch(model, ids, mask, dynamic_shapes=({0: batch}, {0: batch}))
    text = str(imported.module)
    assert "%arg" in text and "tensor<?x8xi64>" in text and "tensor<?x8x32xf32>" in text
    assert "stablehlo.get_dimension_size" in text and "stablehlo.dynamic_reshape" in text
