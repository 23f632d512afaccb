"""tools/bench/dispatches.py: reading iree-profile's statistics, input flags, and one real profile."""

import os
import sys

import ml_dtypes
import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from tools.bench import dispatches  # noqa: E402

# The lines of `iree-profile statistics` the tool reads (IREE 3.13), among others it must skip.
REPORT = """IREE HAL device statistics:
  aggregate_rows=8
  host_execute_queue p=0 q=0 alloca  count=442 total=116.996 us avg=264 ns operations=442 payload=2780823552B
  host_execute_queue p=0 q=0 dispatch  count=663 total=2197.550 ms avg=3.314 ms operations=663 tiles=459680
  host_execute _encoding_0_encode_1024x1024xf32_to_1024x1024xf32  count=221 total=66.813 ms avg=302.321 us tiles=3536
  host_execute main_dispatch_0_matmul_1024x1024x1024_f32  count=221 total=2050.974 ms avg=9.280 ms tiles=452608
  host_execute_queue p=0 q=0 execute  count=221 total=2199.000 ms avg=9.950 ms operations=221
  host_execute_queue p=0 q=0 barrier  count=221 total=9.144 us avg=41 ns
"""


def test_statistics_give_each_dispatch_and_the_whole_call():
    rows = dispatches.parse_statistics(REPORT, calls=221)
    assert [(name, calls) for name, calls, _ in rows] == [
        ("_encoding_0_encode_1024x1024xf32_to_1024x1024xf32", 221),
        ("main_dispatch_0_matmul_1024x1024x1024_f32", 221),
        ("total", 221),
    ]
    assert [round(seconds * 1e6, 3) for _, _, seconds in rows] == [302.321, 9280.0, 9950.0]
    assert dispatches.parse_statistics("no profile here", calls=1) == []


# A program that submits two command buffers per call and runs one dispatch three times in the first.
TWO_SUBMISSIONS = """  host_execute main_dispatch_1_matmul_128x256x256_f32  count=30 total=7.500 ms avg=250.000 us tiles=80
  host_execute_queue p=0 q=0 execute  count=10 total=10.000 ms avg=1.000 ms operations=10
  host_execute main_dispatch_12_matmul_128x1024x256_f32  count=10 total=12.000 ms avg=1.200 ms tiles=80
  host_execute_queue p=0 q=0 execute  count=10 total=25.000 ms avg=2.500 ms operations=10
"""


def test_a_call_is_every_submission_and_shares_count_each_run_of_a_dispatch():
    rows = dispatches.parse_statistics(TWO_SUBMISSIONS, calls=10)
    assert rows[-1][:2] == ("total", 10) and rows[-1][2] == pytest.approx(3.5e-3)
    lines = dispatches.report("block", rows, 1).splitlines()
    assert lines[0] == "block: 3.500 ms per call (1 thread)"
    assert "x3" in lines[1] and "21.4%" in lines[1] and lines[1].endswith("main_dispatch_1_matmul_128x256x256_f32")
    assert "x" not in lines[2].split("%")[0] and "34.3%" in lines[2]


# A loop's program: one command buffer per call before the loop, then one recorded anew every trip (two
# calls of two trips here), each a row of its own.
LOOP = """  host_execute main_dispatch_0_matmul_1024x128x128_f32  count=2 total=2.000 ms avg=1.000 ms tiles=8
  host_execute main_dispatch_1_elementwise_4x128_f32  count=4 total=4.000 us avg=1.000 us tiles=4
  host_execute_queue p=0 q=0 execute  count=2 total=2.010 ms avg=1.005 ms operations=2
  host_execute_queue p=0 q=0 execute  count=1 total=2.000 us avg=2.000 us operations=1
  host_execute_queue p=0 q=0 execute  count=1 total=2.000 us avg=2.000 us operations=1
  host_execute_queue p=0 q=0 execute  count=1 total=3.000 us avg=3.000 us operations=1
  host_execute_queue p=0 q=0 execute  count=1 total=1.000 us avg=1.000 us operations=1
"""


def test_a_loops_trips_count_towards_the_calls_they_ran_in():
    rows = dispatches.parse_statistics(LOOP, calls=2)
    assert rows[-1][:2] == ("total", 2) and rows[-1][2] == pytest.approx((2.010e-3 + 8e-6) / 2)
    lines = dispatches.report("rnn", rows, 1).splitlines()
    assert lines[0] == "rnn: 1.009 ms per call (1 thread)"
    assert "x2" in lines[2] and lines[2].endswith("main_dispatch_1_elementwise_4x128_f32")


@pytest.mark.parametrize("array, spec", [
    (np.zeros((2, 3), np.float32), "2x3xf32"),
    (np.zeros((4,), ml_dtypes.bfloat16), "4xbf16"),
    (np.zeros((1, 1), np.bool_), "1x1xi1"),
    (np.zeros((5,), np.uint8), "5xui8"),
    (np.zeros((2,), np.int64), "2xi64"),
    (np.zeros((3,), np.complex64), "3xcf64"),  # IREE names complex types by their whole width
    (np.zeros((3,), np.complex128), "3xcf128"),
])
def test_input_flags_name_shape_and_element_type_and_write_the_bytes(tmp_path, array, spec):
    path = str(tmp_path / "in.bin")
    assert dispatches.input_flag(path, array) == f"--input={spec}=@{path}"
    assert os.path.getsize(path) == array.nbytes


def test_threads_pick_the_device():
    assert dispatches.device_flags(1) == ["--device=local-sync"]
    assert dispatches.device_flags(2) == ["--device=local-task", "--task_topology_group_count=2"]


@pytest.mark.parametrize("threads", [1, 2])
def test_a_zoo_model_profiles_into_its_dispatches(tmp_path, threads):
    pytest.importorskip("jax")
    rows = dispatches.profile("row_sum", 1, str(tmp_path), threads)
    names = [name for name, _, _ in rows]
    assert names[-1] == "total" and len(names) >= 2
    assert rows[-1][1] == dispatches.ITERATIONS  # one repetition's calls
    total = rows[-1][2]
    assert 0 < sum(seconds for _, _, seconds in rows[:-1]) <= total


def test_an_op_with_a_loop_profiles_per_call(tmp_path):
    pytest.importorskip("jax")
    rows = dispatches.profile("tanh_rnn", 1, str(tmp_path))
    calls, whole = rows[-1][1], rows[-1][2]
    assert calls == dispatches.ITERATIONS
    per_trip = [count for _, count, _ in rows[:-1] if count >= 64 * calls]  # 256 steps, at least 64 trips
    assert per_trip and all(count % calls == 0 for count in per_trip)
    assert 0 < sum(count * seconds for _, count, seconds in rows[:-1]) / calls <= whole
