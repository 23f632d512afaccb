"""The calling thread waits for local-task's workers under SCHED_BATCH, and gets its own policy back."""

import os
import threading

import numpy as np
import pytest
from runtime_testing import compile_mlir

import oxla.runtime as ort
from oxla.runtime import scheduling

pytestmark = pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="no Linux scheduling policies here")

SRC = """
func.func @double(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %a, %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @raw(%a: !hal.buffer_view) -> !hal.buffer_view {
  %t = hal.tensor.import %a : !hal.buffer_view -> tensor<4xf32>
  %0 = stablehlo.add %t, %t : tensor<4xf32>
  %b = hal.tensor.export %0 : tensor<4xf32> -> !hal.buffer_view
  return %b : !hal.buffer_view
}
"""


@pytest.fixture(autouse=True)
def _switched_on(monkeypatch):
    """The tests expect the default, whatever the environment they run in says."""
    monkeypatch.delenv("OXLA_BATCH_WAIT", raising=False)


def _in_thread(fn):
    """fn's result, run on a fresh thread whose policy changes cannot leak into the test process."""
    out = []
    thread = threading.Thread(target=lambda: out.append(fn()))
    thread.start()
    thread.join(timeout=60)
    return out[0]


def _policies(driver, raise_in_call=False):
    """The thread's policy before, inside and after each of three calls of a function wrapped for `driver`."""

    def body():
        seen.append(os.sched_getscheduler(0))
        if raise_in_call:
            raise ValueError("inside")

    seen = []
    wrapped = scheduling.waits_for_workers(body, driver)
    for _ in range(3):
        try:
            wrapped()
        except ValueError:
            pass
        seen.append(os.sched_getscheduler(0))
    return [os.sched_getscheduler(0)] + seen


OTHER, BATCH = (os.SCHED_OTHER, os.SCHED_BATCH) if hasattr(os, "SCHED_BATCH") else (None, None)


@pytest.mark.parametrize("raise_in_call", [False, True])
def test_slow_calls_make_the_next_call_wait_under_batch(monkeypatch, raise_in_call):
    monkeypatch.setattr(scheduling, "SLOW_CALL_S", 0.0)  # every call counts as slow
    # before; first call (nothing learned yet), after; second call, after; third call, after
    expected = [OTHER, OTHER, OTHER, BATCH, OTHER, BATCH, OTHER]
    assert _in_thread(lambda: _policies("local-task", raise_in_call)) == expected


def test_fast_calls_other_drivers_and_the_switch_keep_the_policy(monkeypatch):
    monkeypatch.setattr(scheduling, "SLOW_CALL_S", 3600.0)  # no call counts as slow
    assert _in_thread(lambda: _policies("local-task")) == [OTHER] * 7
    monkeypatch.setattr(scheduling, "SLOW_CALL_S", 0.0)
    for driver in ("local-sync", "vulkan", "cuda"):
        assert _in_thread(lambda: _policies(driver)) == [OTHER] * 7
    monkeypatch.setenv("OXLA_BATCH_WAIT", "0")
    assert _in_thread(lambda: _policies("local-task")) == [OTHER] * 7
    monkeypatch.setenv("OXLA_BATCH_WAIT", "1")
    assert _in_thread(lambda: _policies("local-task"))[3] == BATCH


def test_other_policies_are_left_alone(monkeypatch):
    monkeypatch.setattr(scheduling, "SLOW_CALL_S", 0.0)

    def idle_thread():
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        return _policies("local-task")

    assert _in_thread(idle_thread) == [os.SCHED_IDLE] * 7


@pytest.mark.parametrize("device, switches", [("local-task", 1), ("local-sync", 0)])
def test_calls_wait_under_batch_on_local_task(monkeypatch, device, switches):
    monkeypatch.setattr(scheduling, "SLOW_CALL_S", 0.0)
    seen = []
    enter = scheduling.enter_batch

    def spy():
        changed = enter()
        seen.append(os.sched_getscheduler(0))
        return changed

    monkeypatch.setattr(scheduling, "enter_batch", spy)
    mod = ort.load(compile_mlir(SRC), device=device)

    def run():
        x = np.arange(3, dtype=np.float32)
        for _ in range(2):  # the first call teaches the function that its calls are slow
            np.testing.assert_array_equal(mod.double(x), [0, 2, 4])
        after_call = os.sched_getscheduler(0)
        with pytest.raises(ort.InvocationError, match="shape dimension 0 mismatch"):
            mod.raw(np.ones(5, np.float32))
        mod.raw(np.ones(4, np.float32))
        with pytest.raises(ort.InvocationError, match="shape dimension 0 mismatch"):
            mod.raw(np.ones(5, np.float32))
        return after_call, os.sched_getscheduler(0)

    assert _in_thread(run) == (OTHER, OTHER)
    assert seen == [BATCH] * (3 * switches)  # double's second call, raw's second and third
