"""oxla-legalize-top-k: equal values come out in index order, as chlo.top_k specifies."""

import numpy as np

from oxla import runtime
from oxla.pipelines import compile

TOP_K = """func.func @main(%x: tensor<6xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %v, %i = chlo.top_k(%x, k = 3) : tensor<6xi32> -> (tensor<3xi32>, tensor<3xi32>)
  return %v, %i : tensor<3xi32>, tensor<3xi32>
}
"""


def test_ties_keep_index_order():
    x = np.array([5, 7, 5, 8, 8, 5], np.int32)
    values, indices = runtime.load(compile(TOP_K)).main(x)
    assert values.tolist() == [8, 8, 7] and indices.tolist() == [3, 4, 1]


def test_without_the_pass_iree_breaks_ties_the_other_way():
    x = np.array([5, 7, 5, 8, 8, 5], np.int32)
    _, indices = runtime.load(compile(TOP_K, legalize=False)).main(x)
    assert indices.tolist() != [3, 4, 1]
