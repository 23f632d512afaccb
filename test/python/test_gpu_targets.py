"""GPU targets: code for every GPU target compiles here; it runs where such a device exists."""

import numpy as np
import pytest

from oxla import runtime
from oxla.pipelines import compile

ADD = """func.func @add(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.add %a, %b : tensor<8xf32>
  return %0 : tensor<8xf32>
}
"""


def _available(driver: str) -> bool:
    return any(d.name == driver and d.available for d in runtime.devices())


@pytest.mark.parametrize("target, driver", [("vulkan-spirv", "vulkan"), ("cuda", "cuda"), ("rocm", "hip")])
def test_runs_where_the_device_exists(target, driver):
    if not _available(driver):
        pytest.skip(f"no {driver} device on this machine")
    # On Hopper and newer, sm_89 PTX is compiled by the driver for the device.
    module = runtime.load(compile(ADD, target), device=driver)
    a, b = np.arange(8, dtype=np.float32), np.full(8, 0.5, np.float32)
    np.testing.assert_array_equal(module.add(a, b), a + b)
