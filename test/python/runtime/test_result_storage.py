"""On CPU devices, large results are written straight into arrays oxla.runtime makes (the entries of
oxla-result-storage-entries), and come back the same as through the copying path."""

import numpy as np
import pytest

import oxla.runtime as ort
from oxla import ir, transforms
from oxla.pipelines import compile
from oxla.transforms.result_storage import ENTRY_PREFIX, MIN_RESULT_BYTES

EVERY_RESULT = {"before:input": "builtin.module(oxla-result-storage-entries{min-bytes=1})"}
NO_ENTRIES = ["oxla-result-storage-entries"]

# Results computed, passed through from an argument, constant, and one value returned twice.
MIXED = """func.func @main(%x: tensor<64x32xf32>, %y: tensor<64x32xf32>)
    -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<4xi32>, tensor<64x32xf32>) {
  %0 = stablehlo.add %x, %y : tensor<64x32xf32>
  %c = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  return %0, %y, %c, %0 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<4xi32>, tensor<64x32xf32>
}
"""


def _entry_names(module) -> list[str]:
    names = [ir.StringAttr(op.attributes["sym_name"]).value for op in ir.body_ops(module)]
    return [name for name in names if name.startswith(ENTRY_PREFIX)]


def _pass(src: str, options: str = "") -> ir.Module:
    module = ir.parse(src)
    transforms.run(module, f"builtin.module(oxla-result-storage-entries{options})")
    return module


def test_entries_for_public_functions_with_large_static_results():
    rows = 1024 * 1024 // (4 * 256)  # exactly MIN_RESULT_BYTES of f32
    src = f"""
    func.func public @big(%x: tensor<{rows}x256xf32>) -> tensor<{rows}x256xf32> {{ return %x : tensor<{rows}x256xf32> }}
    func.func @under(%x: tensor<{rows - 1}x256xf32>) -> tensor<{rows - 1}x256xf32> {{
      return %x : tensor<{rows - 1}x256xf32>
    }}
    func.func @dynamic(%x: tensor<?x256xf32>) -> tensor<?x256xf32> {{ return %x : tensor<?x256xf32> }}
    func.func private @hidden(%x: tensor<{rows}x256xf32>) -> tensor<{rows}x256xf32> {{
      return %x : tensor<{rows}x256xf32>
    }}
    func.func @nothing(%x: tensor<{rows}x256xf32>) {{ return }}
    """
    assert rows * 256 * 4 == MIN_RESULT_BYTES
    module = _pass(src)
    assert _entry_names(module) == [ENTRY_PREFIX + "big"]
    assert _entry_names(_pass(str(module), "{min-bytes=1}")) == [ENTRY_PREFIX + n for n in ("big", "under")]


def test_entry_takes_the_results_as_storage_with_their_logical_types():
    module = _pass("""func.func public @f(%x: tensor<2xi8> {iree.abi.encoding = tensor<2xui8>})
        -> (tensor<2xi8> {iree.abi.encoding = tensor<2xui8>}, tensor<2xf32>) {
      %c = stablehlo.constant dense<1.0> : tensor<2xf32>
      return %x, %c : tensor<2xi8>, tensor<2xf32>
    }""", "{min-bytes=1}")
    text = str(module)
    assert (f"@{ENTRY_PREFIX}f(%arg0: tensor<2xi8> {{iree.abi.encoding = tensor<2xui8>}}, "
            "%arg1: tensor<2xi8> {iree.abi.encoding = tensor<2xui8>, iree.abi.output = 0 : index}, "
            "%arg2: tensor<2xf32> {iree.abi.output = 1 : index})") in text
    assert "call @f(%arg0)" in text
    assert len(_entry_names(_pass(text, "{min-bytes=1}"))) == 1  # a second run adds nothing
    module.operation.verify()


@pytest.mark.parametrize("device", ["local-sync", "local-task"])
def test_results_written_into_fresh_arrays_match_the_copied_ones(device):
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal((64, 32)).astype(np.float32) for _ in range(2))
    into = ort.load(compile(MIXED, hooks=EVERY_RESULT), device=device)
    copied = ort.load(compile(MIXED, disable_passes=NO_ENTRIES), device=device)
    assert into.main._into is not None and copied.main._into is None
    assert [s.name for s in into.functions()] == ["main"]  # the entry stays out of sight
    got, expected = into.main(x, y), copied.main(x, y)
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype and a.flags.writeable and a.ctypes.data % ort.ALIGNMENT == 0
    np.testing.assert_array_equal(got[0], x + y)
    assert got[0] is not got[3] and not np.shares_memory(got[0], got[3])
    got[1][...] = 0  # the caller's own arrays: changing one changes nothing else
    np.testing.assert_array_equal(into.main(x, y)[1], y)
    np.testing.assert_array_equal(y, expected[1])
    for a, b in zip(into.call_async("main", x, y).result(), expected):
        np.testing.assert_array_equal(a, b)


def test_each_call_gets_its_own_arrays():
    module = ort.load(compile(MIXED, hooks=EVERY_RESULT), device="local-sync")
    x = np.ones((64, 32), np.float32)
    first = module.main(x, x)[0]
    second = module.main(2 * x, x)[0]
    np.testing.assert_array_equal(first, 2 * x)
    np.testing.assert_array_equal(second, 3 * x)


def test_bool_results_are_copied_out():
    """i1 travels as one byte per element, which is numpy's bool but a different dtype: no entry is used."""
    src = """func.func @main(%x: tensor<64xf32>) -> tensor<64xi1> {
      %z = stablehlo.constant dense<0.0> : tensor<64xf32>
      %0 = stablehlo.compare GT, %x, %z : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xi1>
      return %0 : tensor<64xi1>
    }"""
    module = ort.load(compile(src, hooks=EVERY_RESULT), device="local-sync")
    assert module.main._into is None
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    np.testing.assert_array_equal(module.main(x), x > 0)


def test_unsigned_results_come_back_unsigned():
    src = """func.func @main(%x: tensor<256xui8>) -> tensor<256xui8> {
      %0 = stablehlo.add %x, %x : tensor<256xui8>
      return %0 : tensor<256xui8>
    }"""
    module = ort.load(compile(src, hooks=EVERY_RESULT), device="local-sync")
    assert module.main._into is not None
    x = np.arange(256, dtype=np.uint8)
    got = module.main(x)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, x + x)


def test_an_entry_that_does_not_match_is_not_used():
    src = MIXED + f"""
    func.func @"{ENTRY_PREFIX}main"(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {{ return %x : tensor<64x32xf32> }}
    """
    module = ort.load(compile(src, disable_passes=NO_ENTRIES), device="local-sync")
    assert module.main._into is None
    x = np.ones((64, 32), np.float32)
    np.testing.assert_array_equal(module.main(x, x)[0], 2 * x)


def test_large_results_get_an_entry_by_default_and_small_ones_do_not():
    big = """func.func @main(%x: tensor<512x512xf32>) -> tensor<512x512xf32> {
      %0 = stablehlo.multiply %x, %x : tensor<512x512xf32>
      return %0 : tensor<512x512xf32>
    }"""
    module = ort.load(compile(big), device="local-sync")
    assert module.main._into is not None
    x = np.full((512, 512), 3, np.float32)
    np.testing.assert_array_equal(module.main(x), x * x)
    assert ort.load(compile(MIXED), device="local-sync").main._into is None
