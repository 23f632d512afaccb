"""gather and scatter with their dimension numbers, compared with explicit numpy loops."""

import numpy as np
from interpreter_testing import one

OPERAND = np.arange(24, dtype=np.int32).reshape(2, 3, 4)


def test_gather_rows_as_take_with_clamped_starts():
    text = """func.func @main(%x: tensor<3x4xi32>, %i: tensor<3x1xi32>) -> tensor<3x2xi32> {
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0],
      start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>} : (tensor<3x4xi32>, tensor<3x1xi32>) -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}"""
    x = OPERAND[0]
    out = one(text, x, np.array([[2], [-5], [9]], np.int32))
    np.testing.assert_array_equal(out, x[[2, 0, 2], :2])


def test_gather_with_batching_dims_and_index_vector_first():
    text = """func.func @main(%x: tensor<2x3x4xi32>, %i: tensor<1x2x2xi32>) -> tensor<2x2x2xi32> {
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [1],
      operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [1], index_vector_dim = 0>,
      slice_sizes = array<i64: 1, 1, 2>} : (tensor<2x3x4xi32>, tensor<1x2x2xi32>) -> tensor<2x2x2xi32>
  return %0 : tensor<2x2x2xi32>
}"""
    indices = np.array([[[2, 0], [1, 1]]], np.int32)  # [vector, batch b, position k]
    out = one(text, OPERAND, indices)
    for b in range(2):
        for k in range(2):
            np.testing.assert_array_equal(out[b, k], OPERAND[b, indices[0, b, k], :2])


SCATTER = """func.func @main(%x: tensor<5xf32>, %i: tensor<4x1xi32>, %u: tensor<4xf32>) -> tensor<5xf32> {{
  %0 = "stablehlo.scatter"(%x, %i, %u) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    {body}
  }}) {{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0],
      index_vector_dim = 1>}} : (tensor<5xf32>, tensor<4x1xi32>, tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}}"""


def test_scatter_applies_repeated_updates_in_order_and_skips_out_of_bounds():
    indices = np.array([[1], [3], [1], [7]], np.int32)
    updates = np.array([10, 20, 30, 40], np.float32)
    x = np.ones(5, np.float32)
    added = one(SCATTER.format(body="%s = stablehlo.add %a, %b : tensor<f32>\n    stablehlo.return %s : tensor<f32>"),
                x, indices, updates)
    assert added.tolist() == [1, 41, 1, 21, 1]
    replaced = one(SCATTER.format(body="stablehlo.return %b : tensor<f32>"), x, indices, updates)
    assert replaced.tolist() == [1, 30, 1, 20, 1]  # the later update to position 1 wins
    # a non-commutative region sees the updates in order: (1 - 10) * 2 ... via subtract of the update
    subtracted = one(SCATTER.format(body="%s = stablehlo.subtract %b, %a : tensor<f32>\n    stablehlo.return %s : tensor<f32>"),
                     x, indices, updates)
    assert subtracted.tolist() == [1, 30 - (10 - 1), 1, 20 - 1, 1]


def test_scatter_windows_update_slices():
    text = """func.func @main(%x: tensor<3x4xi32>, %i: tensor<2xi32>, %u: tensor<2x2xi32>) -> tensor<3x4xi32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1],
      index_vector_dim = 0>} : (tensor<3x4xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}"""
    x = np.zeros((3, 4), np.int32)
    out = one(text, x, np.array([1, 2], np.int32), np.array([[1, 2], [3, 4]], np.int32))
    expected = x.copy()
    expected[1:3, 2:4] += [[1, 2], [3, 4]]
    np.testing.assert_array_equal(out, expected)
    # the window at column 3 sticks out: its columns 3 are updated, the column 4 part is dropped
    partial = one(text, x, np.array([0, 3], np.int32), np.array([[1, 2], [3, 4]], np.int32))
    assert partial[:, 3].tolist() == [1, 3, 0] and partial[:, :3].sum() == 0
