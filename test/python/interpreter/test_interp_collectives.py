"""Collectives over a process grid of replicas and partitions (one thread per process)."""

import numpy as np
import pytest
from interpreter_testing import run

from oxla import interpreter


def test_replicas_run_the_function_each_with_their_ids():
    text = """func.func @main(%x: tensor<2xi64>) -> (tensor<2xi64>, tensor<ui32>, tensor<ui32>) {
  %0 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %s = stablehlo.add %a, %b : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<2xi64>) -> tensor<2xi64>
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  return %0, %r, %p : tensor<2xi64>, tensor<ui32>, tensor<ui32>
}"""
    out = interpreter.evaluate(text, "main", np.array([1, 2]), replicas=3)
    assert [o[0].tolist() for o in out] == [[3, 6]] * 3
    assert [int(o[1]) for o in out] == [0, 1, 2] and [int(o[2]) for o in out] == [0, 0, 0]


PARALLEL = """
func.func @gather(%x: tensor<1x2xi64>) -> tensor<2x2xi64> {
  %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
      : (tensor<1x2xi64>) -> tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}
func.func @permute(%x: tensor<2xi64>) -> tensor<2xi64> {
  %0 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}
      : (tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
func.func @main() -> (tensor<2x2xi64>, tensor<2x2xi64>, tensor<2xi64>, tensor<2xi64>) {
  %a = stablehlo.constant dense<[[1, 2]]> : tensor<1x2xi64>
  %b = stablehlo.constant dense<[[3, 4]]> : tensor<1x2xi64>
  %g:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@gather], [@gather]]}
      : (tensor<1x2xi64>, tensor<1x2xi64>) -> (tensor<2x2xi64>, tensor<2x2xi64>)
  %c = stablehlo.constant dense<[5, 6]> : tensor<2xi64>
  %d = stablehlo.constant dense<[7, 8]> : tensor<2xi64>
  %p:2 = "interpreter.run_parallel"(%c, %d) {programs = [[@permute], [@permute]]}
      : (tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>)
  return %g#0, %g#1, %p#0, %p#1 : tensor<2x2xi64>, tensor<2x2xi64>, tensor<2xi64>, tensor<2xi64>
}
"""


def test_run_parallel_gathers_and_permutes():
    from oxla import ir

    module = ir.parse(PARALLEL, allow_unregistered_dialects=True)
    g0, g1, p0, p1 = run(module)
    assert g0.tolist() == g1.tolist() == [[1, 2], [3, 4]]
    assert p0.tolist() == [0, 0] and p1.tolist() == [5, 6]  # replica 0 receives from nobody


def test_all_to_all_and_reduce_scatter_across_partitions():
    text = """func.func @main(%x: tensor<2x2xi64>) -> (tensor<2x2xi64>, tensor<1x2xi64>) {
  %0 = "stablehlo.all_to_all"(%x) {split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : i64,
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>}
      : (tensor<2x2xi64>) -> (tensor<1x4xi64>)
  %1 = "stablehlo.reduce_scatter"(%x) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %s = stablehlo.add %a, %b : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 2, type = 0>, use_global_device_ids}
      : (tensor<2x2xi64>) -> tensor<1x2xi64>
  %r = stablehlo.reshape %0 : (tensor<1x4xi64>) -> tensor<2x2xi64>
  return %r, %1 : tensor<2x2xi64>, tensor<1x2xi64>
}"""
    x = np.array([[1, 2], [3, 4]])
    out = interpreter.evaluate(text, "main", x, partitions=2)
    assert out[0][0].reshape(-1).tolist() == [1, 2, 1, 2] and out[1][0].reshape(-1).tolist() == [3, 4, 3, 4]
    assert out[0][1].tolist() == [[2, 4]] and out[1][1].tolist() == [[6, 8]]


def test_a_failing_process_stops_the_others():
    text = """func.func @main(%x: tensor<2xi64>) -> tensor<2xi64> {
  %r = stablehlo.replica_id : tensor<ui32>
  %zero = stablehlo.constant dense<0> : tensor<ui32>
  %first = stablehlo.compare EQ, %r, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %0 = "stablehlo.if"(%first) ({
    %bad = arith.addi %x, %x : tensor<2xi64>
    stablehlo.return %x : tensor<2xi64>
  }, {
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %t = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %t : tensor<i64>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
    stablehlo.return %s : tensor<2xi64>
  }) : (tensor<i1>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}"""
    with pytest.raises(NotImplementedError, match="arith.addi"):
        interpreter.evaluate(text, "main", np.array([1, 2]), replicas=2)


def test_async_start_and_done_around_a_collective_and_a_slice():
    text = """func.func @main(%x: tensor<1x2xi64>) -> (tensor<2x2xi64>, tensor<1x1xi64>) {
  %f = "stablehlo.async_start"(%x) ({
  ^bb0(%a: tensor<1x2xi64>):
    %g = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
        : (tensor<1x2xi64>) -> tensor<2x2xi64>
    "stablehlo.return"(%g) : (tensor<2x2xi64>) -> ()
  }) : (tensor<1x2xi64>) -> !stablehlo.future<tensor<2x2xi64>>
  %s = "stablehlo.async_start"(%x) ({
  ^bb0(%a: tensor<1x2xi64>):
    %t = "stablehlo.slice"(%a) {start_indices = array<i64: 0, 1>, limit_indices = array<i64: 1, 2>,
        strides = array<i64: 1, 1>} : (tensor<1x2xi64>) -> tensor<1x1xi64>
    "stablehlo.return"(%t) : (tensor<1x1xi64>) -> ()
  }) : (tensor<1x2xi64>) -> !stablehlo.future<tensor<1x1xi64>>
  %r = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<2x2xi64>>) -> tensor<2x2xi64>
  %q = "stablehlo.async_done"(%s) : (!stablehlo.future<tensor<1x1xi64>>) -> tensor<1x1xi64>
  return %r, %q : tensor<2x2xi64>, tensor<1x1xi64>
}"""
    out = interpreter.evaluate(text, "main", np.array([[1, 2]]), replicas=2)
    assert [o[0].tolist() for o in out] == [[[1, 2], [1, 2]]] * 2
    assert [o[1].tolist() for o in out] == [[[2]]] * 2
