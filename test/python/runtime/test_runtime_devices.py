"""Devices: what exists, clear errors for what does not, and the same results on every device."""

import numpy as np
import pytest
from runtime_testing import compile_mlir, vulkan_or_skip

import oxla.runtime as ort

SRC = """
func.func @main(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.multiply %a, %b : tensor<8xf32>
  %1 = stablehlo.add %0, %a : tensor<8xf32>
  return %1 : tensor<8xf32>
}
func.func @stats(%a: tensor<?xf32>) -> (tensor<f32>, tensor<?xi1>, tensor<?xi32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<?xf32>, tensor<f32>) -> tensor<f32>
  %zb = stablehlo.constant dense<0.0> : tensor<f32>
  %n = "stablehlo.get_dimension_size"(%a) {dimension = 0 : i64} : (tensor<?xf32>) -> tensor<i32>
  %shape = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %zs = stablehlo.dynamic_broadcast_in_dim %zb, %shape, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
  %pos = stablehlo.compare GT, %a, %zs : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xi1>
  %i = stablehlo.convert %a : (tensor<?xf32>) -> tensor<?xi32>
  return %s, %pos, %i : tensor<f32>, tensor<?xi1>, tensor<?xi32>
}
func.func @wide(%a: tensor<8xi64>, %c: tensor<4xcomplex<f32>>, %p: tensor<8xi1>) -> (tensor<8xi64>, tensor<4xcomplex<f32>>, tensor<8xi1>) {
  %0 = stablehlo.multiply %a, %a : tensor<8xi64>
  %1 = stablehlo.multiply %c, %c : tensor<4xcomplex<f32>>
  %2 = stablehlo.not %p : tensor<8xi1>
  return %0, %1, %2 : tensor<8xi64>, tensor<4xcomplex<f32>>, tensor<8xi1>
}
"""
BACKEND = {"local-sync": "llvm-cpu", "local-task": "llvm-cpu", "vulkan": "vulkan-spirv"}


@pytest.fixture(scope="module", params=sorted(BACKEND))
def mod(request):
    if request.param == "vulkan":
        vulkan_or_skip()
    return ort.load(compile_mlir(SRC, BACKEND[request.param]), device=request.param)


def test_devices_lists_every_driver():
    infos = {d.name: d for d in ort.devices()}
    assert {"local-sync", "local-task", "vulkan", "cuda", "hip"} <= set(infos)
    assert infos["local-sync"].available and infos["local-task"].available
    for d in infos.values():
        assert isinstance(d.available, bool) and d.detail
        assert str(d).startswith(f"{d.name}: {'available' if d.available else 'unavailable'} (")


def test_missing_device_is_a_device_error_listing_the_available_ones():
    if {d.name: d for d in ort.devices()}["cuda"].available:
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(ort.DeviceError) as e:
        ort.load(compile_mlir(SRC), device="cuda")
    message = str(e.value)
    assert message.startswith("device 'cuda' cannot be created here: ")
    assert message.endswith(", ".join(d.name for d in ort.devices() if d.available))
    assert "local-task" in message and isinstance(e.value, RuntimeError)


def test_unknown_device_lists_the_valid_names():
    with pytest.raises(ort.DeviceError, match=r"^unknown device 'tpu'; valid names: cuda, hip, local-sync, local-task, vulkan"):
        ort.load(compile_mlir(SRC), device="tpu")
    with pytest.raises(TypeError, match="driver name"):
        ort.get_device(3)


def test_devices_are_shared():
    dev = ort.get_device("local-sync")
    assert ort.get_device("local-sync") is dev and ort.get_device(dev) is dev
    mod = ort.load(compile_mlir(SRC), device=dev)
    assert mod.device is dev and "local-sync" in repr(dev)


def test_module_for_another_device_is_refused_with_advice():
    vulkan_or_skip()
    with pytest.raises(ort.ModuleLoadError, match=r"cannot run on device 'vulkan': it was compiled for llvm-cpu .*device='local-task'"):
        ort.load(compile_mlir(SRC), device="vulkan")
    with pytest.raises(ort.ModuleLoadError, match=r"cannot run on device 'local-task': it was compiled for vulkan-spirv .*device='vulkan'"):
        ort.load(compile_mlir(SRC, "vulkan-spirv"), device="local-task")


def test_same_results_on_every_device(mod):
    a = np.linspace(-2, 5, 8, dtype=np.float32)
    b = np.arange(8, dtype=np.float32)
    got = mod.main(a, b)
    assert type(got) is np.ndarray and got.dtype == np.float32
    np.testing.assert_allclose(got, a * b + a, rtol=1e-6)


def test_multiple_dynamic_and_rank0_results_on_every_device(mod):
    for n in (1, 5, 64):
        a = np.linspace(-3, 3, n, dtype=np.float32)
        total, pos, ints = mod.stats(a)
        assert total.shape == () and total.dtype == np.float32
        np.testing.assert_allclose(total, a.sum(), atol=1e-5)
        np.testing.assert_array_equal(pos, a > 0)
        np.testing.assert_array_equal(ints, a.astype(np.int32))


def test_wider_and_boolean_types_on_every_device(mod):
    a = np.array([3, -4, 2**31, 0, 1, -1, 7, 2**20], np.int64)
    c = np.array([1 + 1j, 2, -1j, 0.5 + 0.25j], np.complex64)
    p = np.array([True, False] * 4)
    sq, csq, notp = mod.wide(a, c, p)
    np.testing.assert_array_equal(sq, a * a)
    np.testing.assert_allclose(csq, c * c, rtol=1e-6)
    np.testing.assert_array_equal(notp, ~p)


def test_async_on_every_device(mod):
    a = np.ones(8, np.float32)
    futures = [mod.main.call_async(a, np.full(8, i, np.float32)) for i in range(6)]
    for i, f in enumerate(futures):
        np.testing.assert_array_equal(f.result(timeout=60), np.full(8, i + 1.0))


# A product whose [rows, n] f32 result the reduction after it reads from a transient buffer.
def _staged(rows: str, n: str) -> str:
    y = f"tensor<{rows}x{n}xf32>"
    return f"""func.func @main(%x: tensor<{rows}x512xf32>, %w: tensor<512x{n}xf32>) -> tensor<{rows}xf32> {{
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<{rows}x512xf32>, tensor<512x{n}xf32>) -> {y}
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%y init: %z) applies stablehlo.maximum across dimensions = [1] : ({y}, tensor<f32>) -> tensor<{rows}xf32>
  return %r : tensor<{rows}xf32>
}}
"""


def _page_faults() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


COLUMN_MAX = """func.func @main(%x: tensor<10240x1024xf32>) -> tensor<1024xf32> {
  %low = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = stablehlo.reduce(%x init: %low) applies stablehlo.maximum across dimensions = [0] : (tensor<10240x1024xf32>, tensor<f32>) -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
"""


def test_buffers_stay_cached_after_many_other_sizes_were_freed():
    """IREE's caching allocator keeps 64 freed buffers by default and then frees every buffer released
    after, so once other calls' buffers filled it each call paged its buffers in afresh (a 40 MB input
    copied into a device buffer: 10773 faults a call here). oxla's devices keep 1024."""
    column_max = ort.load(compile_mlir(COLUMN_MAX), device="local-sync")
    varied = ort.load(compile_mlir(_staged("8", "?")), device="local-sync")
    for i in range(80):  # 80 transients of 80 sizes, freed into the cache
        n = 16 * (i + 1)
        assert varied.main(np.ones((8, 512), np.float32), np.ones((512, n), np.float32)).shape == (8,)
    wide = np.random.default_rng(0).standard_normal((10240, 1040)).astype(np.float32)
    x = wide[:, :1024]  # not contiguous: copied into a device buffer every call
    for _ in range(2):  # the first call allocates that buffer
        np.testing.assert_array_equal(column_max.main(x), x.max(axis=0))
    before = _page_faults()
    column_max.main(x)
    assert _page_faults() - before < 2048  # 10240 pages were its buffer's own, come from the cache


def test_loading_a_program_frees_the_cached_buffers_no_call_holds():
    """So a process that moves on to other programs does not keep the earlier ones' buffers."""
    column_max = ort.load(compile_mlir(COLUMN_MAX), device="local-sync")
    allocator = column_max.device.hal.allocator
    if not allocator.has_statistics:
        pytest.skip("this IREE runtime keeps no allocator statistics")
    x = np.ones((10240, 1040), np.float32)[:, :1024]
    np.testing.assert_array_equal(column_max.main(x), 1.0)  # its 40 MB input buffer is now cached
    freed = allocator.statistics["device_bytes_freed"]
    ort.load(compile_mlir(_staged("8", "?")), device="local-sync")
    assert allocator.statistics["device_bytes_freed"] - freed >= x.nbytes
    np.testing.assert_array_equal(column_max.main(x), 1.0)  # and allocated again when needed
