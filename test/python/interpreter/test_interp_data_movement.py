"""Data movement and dynamic-shape ops: broadcasts, reshape, transpose, slices, pad, concatenate, iota."""

import numpy as np
from interpreter_testing import one

X = np.arange(6, dtype=np.int32).reshape(2, 3)


def test_broadcast_in_dim_with_permuted_and_stretched_dims():
    text = """func.func @main(%x: tensor<2x3xi32>) -> tensor<3x4x2xi32> {
  %0 = stablehlo.broadcast_in_dim %x, dims = [2, 0] : (tensor<2x3xi32>) -> tensor<3x4x2xi32>
  return %0 : tensor<3x4x2xi32>
}"""
    out = one(text, X)
    assert out.shape == (3, 4, 2)
    np.testing.assert_array_equal(out[:, 1, :], X.T)
    ones = one("""func.func @main(%x: tensor<1xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<1xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}""", np.array([7], np.float32))
    assert ones.tolist() == [[7] * 3] * 2


def test_reshape_transpose_reverse_slice():
    text = """func.func @main(%x: tensor<2x3xi32>) -> (tensor<3x2xi32>, tensor<3x2xi32>, tensor<2x3xi32>, tensor<1x2xi32>) {
  %0 = stablehlo.reshape %x : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %1 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %2 = stablehlo.reverse %x, dims = [0, 1] : tensor<2x3xi32>
  %3 = stablehlo.slice %x [1:2, 0:3:2] : (tensor<2x3xi32>) -> tensor<1x2xi32>
  return %0, %1, %2, %3 : tensor<3x2xi32>, tensor<3x2xi32>, tensor<2x3xi32>, tensor<1x2xi32>
}"""
    from interpreter_testing import run

    reshaped, transposed, reversed_, sliced = run(text, X)
    np.testing.assert_array_equal(reshaped, X.reshape(3, 2))
    np.testing.assert_array_equal(transposed, X.T)
    np.testing.assert_array_equal(reversed_, X[::-1, ::-1])
    np.testing.assert_array_equal(sliced, X[1:2, 0:3:2])


def test_pad_with_interior_and_negative_edges():
    text = """func.func @main(%x: tensor<2x3xi32>) -> tensor<4x4xi32> {
  %c = stablehlo.constant dense<-1> : tensor<i32>
  %0 = stablehlo.pad %x, %c, low = [1, -1], high = [0, 0], interior = [1, 1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}"""
    out = one(text, X)
    assert out.tolist() == [[-1, -1, -1, -1], [-1, 1, -1, 2], [-1, -1, -1, -1], [-1, 4, -1, 5]]


def test_concatenate_with_an_empty_operand_and_iota():
    text = """func.func @main(%x: tensor<2x3xi32>, %e: tensor<0x3xi32>) -> (tensor<2x3xi32>, tensor<2x3xf32>) {
  %0 = stablehlo.concatenate %e, %x, dim = 0 : (tensor<0x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %1 = stablehlo.iota dim = 1 : tensor<2x3xf32>
  return %0, %1 : tensor<2x3xi32>, tensor<2x3xf32>
}"""
    from interpreter_testing import run

    cat, iota = run(text, X, np.zeros((0, 3), np.int32))
    np.testing.assert_array_equal(cat, X)
    assert iota.tolist() == [[0, 1, 2], [0, 1, 2]]


def test_dynamic_slice_clamps_and_dynamic_update_slice_copies():
    text = """func.func @main(%x: tensor<2x3xi32>, %i: tensor<i32>) -> (tensor<2x2xi32>, tensor<2x3xi32>) {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.dynamic_slice %x, %z, %i, sizes = [2, 2] : (tensor<2x3xi32>, tensor<i32>, tensor<i32>) -> tensor<2x2xi32>
  %u = stablehlo.constant dense<[[9, 9]]> : tensor<1x2xi32>
  %1 = stablehlo.dynamic_update_slice %x, %u, %i, %i : (tensor<2x3xi32>, tensor<1x2xi32>, tensor<i32>, tensor<i32>) -> tensor<2x3xi32>
  return %0, %1 : tensor<2x2xi32>, tensor<2x3xi32>
}"""
    from interpreter_testing import run

    sliced, updated = run(text, X, np.int32(5))  # start 5 is clamped to 1 (and to 0/1 for the update)
    np.testing.assert_array_equal(sliced, X[:, 1:3])
    assert updated.tolist() == [[0, 1, 2], [3, 9, 9]]
    assert X.tolist() == [[0, 1, 2], [3, 4, 5]]  # the operand is untouched


def test_dynamic_shapes_come_from_operands():
    text = """func.func @main(%x: tensor<?x2xf32>) -> (tensor<i32>, tensor<?x?xf32>, tensor<?xi32>) {
  %0 = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x2xf32>) -> tensor<i32>
  %s = stablehlo.constant dense<[2, 3]> : tensor<2xi32>
  %1 = stablehlo.dynamic_reshape %x, %s : (tensor<?x2xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  %n = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>
  %2 = stablehlo.dynamic_iota %n, dim = 0 : (tensor<1xi32>) -> tensor<?xi32>
  return %0, %1, %2 : tensor<i32>, tensor<?x?xf32>, tensor<?xi32>
}"""
    from interpreter_testing import run

    size, reshaped, iota = run(text, np.arange(6, dtype=np.float32).reshape(3, 2))
    assert size == 3 and reshaped.shape == (2, 3) and iota.tolist() == [0, 1, 2]


def test_dynamic_broadcast_and_pad():
    text = """func.func @main(%x: tensor<?xf32>, %shape: tensor<2xi64>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [1] : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %v = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1> : tensor<1xi64>
  %1 = stablehlo.dynamic_pad %x, %v, %one, %one, %one : (tensor<?xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<?xf32>
}"""
    from interpreter_testing import run

    broadcast, padded = run(text, np.array([1, 2], np.float32), np.array([3, 2], np.int64))
    assert broadcast.tolist() == [[1, 2]] * 3 and padded.tolist() == [0, 1, 0, 2, 0]
