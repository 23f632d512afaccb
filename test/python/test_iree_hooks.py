"""The semi-private IREE hooks oxla depends on: fail loudly if the pinned wheel changes them."""

from oxla import _iree, ir


def test_every_hook_is_present():
    assert _iree.check_hooks() == []


def test_session_context_is_an_mlir_context():
    ctx = ir.context()
    assert isinstance(ctx, ir.Context.__mro__[1])  # the bindings' base class; ir.Context subclasses it
    with ctx:
        assert str(ir.Type.parse("tensor<2xbf16>")) == "tensor<2xbf16>"


def test_export_gives_an_owned_module():
    module = ir.session().parse_buffer(b"func.func private @f()\n", "hooks.mlir")
    assert isinstance(module, ir.Module)
    del module  # freed by Python without touching the invocation that made it
    assert ir.session().parse_buffer(b"not mlir", "x") is None


def test_captured_stderr_collects_native_output():
    import os

    with _iree.CapturedStderr() as captured:
        os.write(2, b"from native code\n")
    assert captured.text == "from native code\n"
