"""Builders and type inference of gather, dynamic_gather and scatter, with the specification's examples and broken
rules."""

import pytest

from oxla import ir
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo.attributes import GatherDimensionNumbers, ScatterDimensionNumbers

from conftest import add_body, build, conformance_ops, constant, needs_conformance, raises_rule


# gather -------------------------------------------------------------------------------------------------------------

SPEC_GATHER = GatherDimensionNumbers(offset_dims=[3, 4], collapsed_slice_dims=[1], operand_batching_dims=[0],
                                     start_indices_batching_dims=[1], start_index_map=[2, 1], index_vector_dim=3)
OPERAND, INDICES = "tensor<2x3x4x2xi32>", "tensor<2x2x3x2xi64>"


def test_gather_spec_example_with_batching_dims_and_readback():
    b = build(lambda x, i: shlo.gather(x, i, SPEC_GATHER, [1, 1, 2, 2], indices_are_sorted=False), OPERAND, INDICES)
    assert b.result_types == ["tensor<2x2x3x2x2xi32>"]
    op = b.ops("stablehlo.gather")[0]
    assert isinstance(op, shlo.GatherOp)
    assert op.dimension_numbers == SPEC_GATHER
    assert (op.slice_sizes, op.indices_are_sorted) == ([1, 1, 2, 2], False)
    assert op.operand.type == op.operation.operands[0].type and str(op.start_indices.type) == INDICES


@pytest.mark.parametrize("operand, indices, numbers, slice_sizes, expected", [
    # the interpreter's example without batching dims
    ("tensor<3x4x2xi64>", "tensor<2x3x2xi64>",
     dict(offset_dims=[2, 3], collapsed_slice_dims=[0], start_index_map=[1, 0], index_vector_dim=2), [1, 2, 2],
     "tensor<2x3x2x2xi64>"),
    # from JAX's tests: offset dims before and after the batch dims
    ("tensor<10x10x10x10xf32>", "tensor<1x1x4x3xi64>",
     dict(offset_dims=[1, 2, 3, 4], start_index_map=[1, 2, 3], index_vector_dim=3), [10, 2, 2, 2],
     "tensor<1x10x2x2x2x1x4xf32>"),
    ("tensor<3xi64>", "tensor<1x1xi32>", dict(collapsed_slice_dims=[0], start_index_map=[0], index_vector_dim=1), [1],
     "tensor<1xi64>"),
    # index_vector_dim = rank(start_indices): each index is a scalar
    ("tensor<5x3xf32>", "tensor<4xi32>",
     dict(offset_dims=[1], collapsed_slice_dims=[0], start_index_map=[0], index_vector_dim=1), [1, 3], "tensor<4x3xf32>"),
    # dynamic batch dims stay dynamic; slice sizes fix the offset dims
    ("tensor<?x8xf32>", "tensor<?x2xi32>",
     dict(offset_dims=[1, 2], start_index_map=[0, 1], index_vector_dim=1), [2, 3], "tensor<?x2x3xf32>"),
])
def test_gather_shapes(operand, indices, numbers, slice_sizes, expected):
    b = build(lambda x, i: shlo.gather(x, i, numbers, slice_sizes), operand, indices)
    assert b.result_types == [expected]
    assert b.ops("stablehlo.gather")[0].dimension_numbers == GatherDimensionNumbers(**numbers)


def _spec(**changes):
    fields = dict(SPEC_GATHER.__dict__)
    fields.update(changes)
    return GatherDimensionNumbers(**fields)


@pytest.mark.parametrize("numbers, slice_sizes, fragment", [
    (_spec(offset_dims=[3]), [1, 1, 2, 2], "rank(operand) (4) must be size(offset_dims) + size(collapsed_slice_dims)"),
    (_spec(index_vector_dim=5), [1, 1, 2, 2], "index_vector_dim must be in [0, rank(start_indices) = 4], got 5"),
    (_spec(start_index_map=[2]), [1, 1, 2, 2], "start_index_map ([2]) must have one entry per index"),
    (_spec(offset_dims=[4, 3]), [1, 1, 2, 2], "offset_dims must be sorted and unique, got [4, 3]"),
    (_spec(offset_dims=[3, 5]), [1, 1, 2, 2], "offset_dims must be in [0, 5), got [3, 5]"),
    (_spec(collapsed_slice_dims=[0], operand_batching_dims=[0]), [1, 1, 2, 2],
     "collapsed_slice_dims and operand_batching_dims together must not repeat a dimension"),
    (_spec(collapsed_slice_dims=[2, 1], offset_dims=[3], operand_batching_dims=[0]), [1, 1, 1, 2],
     "collapsed_slice_dims must be sorted, got [2, 1]"),
    (_spec(collapsed_slice_dims=[4]), [1, 1, 2, 2], "collapsed_slice_dims must be in [0, 4), got [4]"),
    (_spec(), [1, 2, 2, 2], "slice_sizes must be 0 or 1 in collapsed_slice_dims [1]"),
    (_spec(operand_batching_dims=[3, 0], start_indices_batching_dims=[0, 1], offset_dims=[3]), [1, 1, 2, 1],
     "operand_batching_dims must be sorted, got [3, 0]"),
    (_spec(operand_batching_dims=[4]), [1, 1, 2, 2], "operand_batching_dims must be in [0, 4), got [4]"),
    (_spec(), [2, 1, 2, 2], "slice_sizes must be 0 or 1 in operand_batching_dims [0]"),
    (_spec(operand_batching_dims=[0, 3], start_indices_batching_dims=[1, 1], offset_dims=[3]), [1, 1, 2, 1],
     "start_indices_batching_dims must be unique, got [1, 1]"),
    (_spec(start_indices_batching_dims=[4]), [1, 1, 2, 2], "start_indices_batching_dims must be in [0, 4), got [4]"),
    (_spec(start_indices_batching_dims=[3]), [1, 1, 2, 2],
     "start_indices_batching_dims ([3]) must not include index_vector_dim (3)"),
    (_spec(start_indices_batching_dims=[]), [1, 1, 2, 2],
     "operand_batching_dims and start_indices_batching_dims must have the same size"),
    (_spec(start_indices_batching_dims=[2]), [1, 1, 2, 2],
     "operand_batching_dims[0] and start_indices_batching_dims[0] must have the same size: operand dimension 0 is 2, "
     "start_indices dimension 2 is 3"),
    (_spec(start_index_map=[0, 1]), [1, 1, 2, 2],
     "start_index_map and operand_batching_dims together must not repeat a dimension"),
    (_spec(start_index_map=[2, 4]), [1, 1, 2, 2], "start_index_map must be in [0, 4), got [2, 4]"),
    (_spec(), [1, 1, 2], "slice_sizes must have rank(operand) = 4 entries, got [1, 1, 2]"),
    (_spec(), [1, 1, 5, 2], "slice_sizes[2] (5) must be in [0, 4] (operand dimension 2)"),
    (_spec(), [1, 1, -1, 2], "slice_sizes[2] (-1) must be in [0, 4]"),
])
def test_gather_rules(numbers, slice_sizes, fragment):
    with raises_rule(ValueError, "stablehlo.gather", fragment):
        build(lambda x, i: shlo.gather(x, i, numbers, slice_sizes), OPERAND, INDICES)


def test_gather_element_type_and_argument_rules():
    with raises_rule(TypeError, "stablehlo.gather", "start_indices must have integer elements, got f32"):
        build(lambda x, i: shlo.gather(x, i, SPEC_GATHER, [1, 1, 2, 2]), OPERAND, "tensor<2x2x3x2xf32>")
    with pytest.raises(TypeError, match="missing required argument 'slice_sizes'"):
        build(lambda x, i: shlo.gather(x, i, SPEC_GATHER), OPERAND, INDICES)
    with raises_rule(TypeError, "stablehlo.gather", "attribute dimension_numbers: expected GatherDimensionNumbers"):
        build(lambda x, i: shlo.gather(x, i, [1, 2], [1, 1, 2, 2]), OPERAND, INDICES)


# dynamic_gather -----------------------------------------------------------------------------------------------------

DYNAMIC_GATHER = GatherDimensionNumbers(offset_dims=[2, 3], collapsed_slice_dims=[0], start_index_map=[1, 0],
                                        index_vector_dim=2)


def test_dynamic_gather_spec_example_with_constant_slice_sizes():
    def body(x, i):
        return shlo.dynamic_gather(x, i, constant("[1, 2, 2]", "tensor<3xi64>"), DYNAMIC_GATHER,
                                   indices_are_sorted=False)
    b = build(body, "tensor<3x4x2xi64>", "tensor<2x3x2xi64>")
    assert b.result_types == ["tensor<2x3x2x2xi64>"]
    op = b.ops("stablehlo.dynamic_gather")[0]
    assert isinstance(op, shlo.DynamicGatherOp)
    assert op.dimension_numbers == DYNAMIC_GATHER and op.indices_are_sorted is False
    assert str(op.slice_sizes.type) == "tensor<3xi64>"


def test_dynamic_gather_with_batching_dims_and_unknown_slice_sizes():
    b = build(lambda x, i, s: shlo.dynamic_gather(x, i, s, SPEC_GATHER), OPERAND, INDICES, "tensor<4xi32>")
    assert b.result_types == ["tensor<2x2x3x?x?xi32>"]


def test_dynamic_gather_rules():
    with raises_rule(ValueError, "stablehlo.dynamic_gather", "slice_sizes must have rank(operand) = 3 entries"):
        build(lambda x, i, s: shlo.dynamic_gather(x, i, s, DYNAMIC_GATHER),
              "tensor<3x4x2xi64>", "tensor<2x3x2xi64>", "tensor<2xi64>")
    with raises_rule(ValueError, "stablehlo.dynamic_gather", "slice_sizes must be a 1-D tensor of static size"):
        build(lambda x, i, s: shlo.dynamic_gather(x, i, s, DYNAMIC_GATHER),
              "tensor<3x4x2xi64>", "tensor<2x3x2xi64>", "tensor<?xi64>")
    with raises_rule(TypeError, "stablehlo.dynamic_gather", "slice_sizes must have integer elements"):
        build(lambda x, i, s: shlo.dynamic_gather(x, i, s, DYNAMIC_GATHER),
              "tensor<3x4x2xi64>", "tensor<2x3x2xi64>", "tensor<3xf32>")
    with raises_rule(ValueError, "stablehlo.dynamic_gather", "slice_sizes must be 0 or 1 in collapsed_slice_dims [0]"):
        build(lambda x, i: shlo.dynamic_gather(x, i, constant("[2, 2, 2]", "tensor<3xi64>"), DYNAMIC_GATHER),
              "tensor<3x4x2xi64>", "tensor<2x3x2xi64>")
    with raises_rule(ValueError, "stablehlo.dynamic_gather", "slice_sizes[1] (5) must be in [0, 4]"):
        build(lambda x, i: shlo.dynamic_gather(x, i, constant("[1, 5, 2]", "tensor<3xi64>"), DYNAMIC_GATHER),
              "tensor<3x4x2xi64>", "tensor<2x3x2xi64>")
    with raises_rule(ValueError, "stablehlo.dynamic_gather", "start_index_map ([1, 0]) must have one entry per index"):
        build(lambda x, i, s: shlo.dynamic_gather(x, i, s, DYNAMIC_GATHER),
              "tensor<3x4x2xi64>", "tensor<2x3x3xi64>", "tensor<3xi64>")


# scatter ------------------------------------------------------------------------------------------------------------

SPEC_SCATTER = ScatterDimensionNumbers(update_window_dims=[3, 4], inserted_window_dims=[1], input_batching_dims=[0],
                                       scatter_indices_batching_dims=[1], scatter_dims_to_operand_dims=[2, 1],
                                       index_vector_dim=3)
INPUT, SCATTER_INDICES, UPDATES = "tensor<2x3x4x2xi64>", "tensor<2x2x3x2xi64>", "tensor<2x2x3x2x2xi64>"


def test_scatter_spec_example_with_batching_dims_and_readback():
    seen = []

    def combine(a, b):
        seen.extend(str(v.type) for v in (a, b))
        return shlo.add(a, b)

    b = build(lambda x, i, u: shlo.scatter(x, i, u, SPEC_SCATTER, indices_are_sorted=False, unique_indices=False,
                                           update_computation=combine), INPUT, SCATTER_INDICES, UPDATES)
    assert b.result_types == [INPUT]
    assert seen == ["tensor<i64>", "tensor<i64>"]
    op = b.ops("stablehlo.scatter")[0]
    assert isinstance(op, shlo.ScatterOp)
    assert op.scatter_dimension_numbers == SPEC_SCATTER
    assert (op.indices_are_sorted, op.unique_indices) == (False, False)
    assert [str(v.type) for v in op.inputs] == [INPUT] and [str(v.type) for v in op.updates] == [UPDATES]
    assert str(op.scatter_indices.type) == SCATTER_INDICES
    assert len(op.update_computation.blocks[0].arguments) == 2


def test_scatter_variadic_inputs_return_a_tuple_and_take_two_scalars_per_input():
    numbers = ScatterDimensionNumbers(update_window_dims=[1], inserted_window_dims=[0],
                                      scatter_dims_to_operand_dims=[0], index_vector_dim=1)
    seen = []

    def combine(x_old, y_old, x_new, y_new):
        seen.extend(str(v.type) for v in (x_old, y_old, x_new, y_new))
        return shlo.maximum(x_old, x_new), shlo.add(y_old, y_new)

    def body(x, y, i, ux, uy):
        results = shlo.scatter([x, y], i, [ux, uy], numbers, unique_indices=True, update_computation=combine)
        assert isinstance(results, tuple) and len(results) == 2
        return results

    b = build(body, "tensor<5x3xf32>", "tensor<5x3xi32>", "tensor<4x1xi32>", "tensor<4x3xf32>", "tensor<4x3xi32>")
    assert b.result_types == ["tensor<5x3xf32>", "tensor<5x3xi32>"]
    assert seen == ["tensor<f32>", "tensor<i32>", "tensor<f32>", "tensor<i32>"]
    op = b.ops("stablehlo.scatter")[0]
    assert len(op.inputs) == 2 and len(op.updates) == 2 and op.unique_indices is True


@pytest.mark.parametrize("inputs, indices, updates, numbers, expected", [
    # one scalar index per update row (index_vector_dim = rank(scatter_indices)), updates smaller than the window
    ("tensor<5x3xf32>", "tensor<4xi32>", "tensor<4x2xf32>",
     dict(update_window_dims=[1], inserted_window_dims=[0], scatter_dims_to_operand_dims=[0], index_vector_dim=1),
     "tensor<5x3xf32>"),
    # from JAX's scatter-add tests
    ("tensor<1x1x1xbf16>", "tensor<1xi64>", "tensor<1x1xbf16>",
     dict(update_window_dims=[0, 1], inserted_window_dims=[0], scatter_dims_to_operand_dims=[0]), "tensor<1x1x1xbf16>"),
    ("tensor<?x3xf32>", "tensor<?x1xi32>", "tensor<?x3xf32>",
     dict(update_window_dims=[1], inserted_window_dims=[0], scatter_dims_to_operand_dims=[0], index_vector_dim=1),
     "tensor<?x3xf32>"),
])
def test_scatter_shapes(inputs, indices, updates, numbers, expected):
    b = build(lambda x, i, u: shlo.scatter(x, i, u, numbers, update_computation=add_body), inputs, indices, updates)
    assert b.result_types == [expected]


def _scatter_spec(**changes):
    fields = dict(SPEC_SCATTER.__dict__)
    fields.update(changes)
    return ScatterDimensionNumbers(**fields)


@pytest.mark.parametrize("numbers, updates, fragment", [
    (_scatter_spec(update_window_dims=[3]), UPDATES,
     "rank(inputs[0]) (4) must be size(update_window_dims) + size(inserted_window_dims) + size(input_batching_dims)"),
    (_scatter_spec(update_window_dims=[4, 3]), UPDATES, "update_window_dims must be sorted and unique, got [4, 3]"),
    (_scatter_spec(update_window_dims=[3, 5]), UPDATES, "update_window_dims must be in [0, 5), got [3, 5]"),
    (_scatter_spec(inserted_window_dims=[0]), UPDATES,
     "inserted_window_dims and input_batching_dims together must not repeat a dimension"),
    (_scatter_spec(inserted_window_dims=[2, 1], update_window_dims=[3]), "tensor<2x2x3x2xi64>",
     "inserted_window_dims must be sorted, got [2, 1]"),
    (_scatter_spec(inserted_window_dims=[4]), UPDATES, "inserted_window_dims must be in [0, 4), got [4]"),
    (_scatter_spec(input_batching_dims=[3, 0], scatter_indices_batching_dims=[0, 1], update_window_dims=[3]),
     "tensor<2x2x3x2xi64>", "input_batching_dims must be sorted, got [3, 0]"),
    (_scatter_spec(input_batching_dims=[4]), UPDATES, "input_batching_dims must be in [0, 4), got [4]"),
    (_scatter_spec(input_batching_dims=[0, 3], scatter_indices_batching_dims=[1, 1], update_window_dims=[3]),
     "tensor<2x2x3x2xi64>", "scatter_indices_batching_dims must be unique, got [1, 1]"),
    (_scatter_spec(scatter_indices_batching_dims=[4]), UPDATES,
     "scatter_indices_batching_dims must be in [0, 4), got [4]"),
    (_scatter_spec(scatter_indices_batching_dims=[3]), UPDATES,
     "scatter_indices_batching_dims ([3]) must not include index_vector_dim (3)"),
    (_scatter_spec(scatter_indices_batching_dims=[]), UPDATES,
     "input_batching_dims and scatter_indices_batching_dims must have the same size"),
    (_scatter_spec(scatter_indices_batching_dims=[2]), UPDATES,
     "input_batching_dims[0] and scatter_indices_batching_dims[0] must have the same size: inputs[0] dimension 0 is 2, "
     "scatter_indices dimension 2 is 3"),
    (_scatter_spec(scatter_dims_to_operand_dims=[2]), UPDATES,
     "scatter_dims_to_operand_dims ([2]) must have one entry per index"),
    (_scatter_spec(scatter_dims_to_operand_dims=[0, 1]), UPDATES,
     "scatter_dims_to_operand_dims and input_batching_dims together must not repeat a dimension"),
    (_scatter_spec(scatter_dims_to_operand_dims=[2, 4]), UPDATES,
     "scatter_dims_to_operand_dims must be in [0, 4), got [2, 4]"),
    (_scatter_spec(index_vector_dim=5), UPDATES, "index_vector_dim must be in [0, rank(scatter_indices) = 4], got 5"),
    (SPEC_SCATTER, "tensor<2x2x3x2x2x1xi64>", "updates must have rank 5"),
    (SPEC_SCATTER, "tensor<2x2x4x2x2xi64>", "updates dimension 2 (4) is a scatter dimension and must equal the "
                                            "scatter_indices' 3"),
    (SPEC_SCATTER, "tensor<2x2x3x5x2xi64>", "updates dimension 3 (5) is a window dimension and must not exceed the "
                                            "inputs' 4"),
])
def test_scatter_rules(numbers, updates, fragment):
    with raises_rule(ValueError, "stablehlo.scatter", fragment):
        build(lambda x, i, u: shlo.scatter(x, i, u, numbers, update_computation=add_body), INPUT, SCATTER_INDICES,
              updates)


def test_scatter_operand_and_computation_rules():
    numbers = ScatterDimensionNumbers(update_window_dims=[1], inserted_window_dims=[0],
                                      scatter_dims_to_operand_dims=[0], index_vector_dim=1)
    with raises_rule(ValueError, "stablehlo.scatter", "as many updates as inputs"):
        build(lambda x, i, u: shlo.scatter([x, x], i, [u], numbers, update_computation=lambda *a: a[:2]),
              "tensor<5x3xf32>", "tensor<4x1xi32>", "tensor<4x3xf32>")
    with raises_rule(ValueError, "stablehlo.scatter", "inputs must have the same shape"):
        build(lambda x, y, i, u: shlo.scatter([x, y], i, [u, u], numbers, update_computation=lambda a, b, c, d: [a, b]),
              "tensor<5x3xf32>", "tensor<6x3xf32>", "tensor<4x1xi32>", "tensor<4x3xf32>")
    with raises_rule(ValueError, "stablehlo.scatter", "updates must have the same shape"):
        build(lambda x, i, u, v: shlo.scatter([x, x], i, [u, v], numbers, update_computation=lambda a, b, c, d: [a, b]),
              "tensor<5x3xf32>", "tensor<4x1xi32>", "tensor<4x3xf32>", "tensor<4x2xf32>")
    with raises_rule(TypeError, "stablehlo.scatter", "updates[0] must have the element type of inputs[0], got f16 and f32"):
        build(lambda x, i, u: shlo.scatter(x, i, u, numbers, update_computation=add_body),
              "tensor<5x3xf32>", "tensor<4x1xi32>", "tensor<4x3xf16>")
    with raises_rule(TypeError, "stablehlo.scatter", "scatter_indices must have integer elements"):
        build(lambda x, i, u: shlo.scatter(x, i, u, numbers, update_computation=add_body),
              "tensor<5x3xf32>", "tensor<4x1xf32>", "tensor<4x3xf32>")
    with raises_rule(ValueError, "stablehlo.scatter", "update_computation must return 1 scalar tensor(s)"):
        build(lambda x, i, u: shlo.scatter(x, i, u, numbers, update_computation=lambda a, b: [a, b]),
              "tensor<5x3xf32>", "tensor<4x1xi32>", "tensor<4x3xf32>")


# Conformance text -------------------------------------------------------------------------------------------------

@needs_conformance
def test_conformance_gather_and_dynamic_gather_parse_as_op_classes():
    with ir.context():
        gathers = conformance_ops("interpret/gather.mlir", "stablehlo.gather")
        assert gathers and all(isinstance(op, shlo.GatherOp) for op in gathers)
        assert SPEC_GATHER in [op.dimension_numbers for op in gathers]
        assert [1, 1, 2, 2] in [op.slice_sizes for op in gathers]
        dynamic = conformance_ops("interpret/dynamic_gather.mlir", "stablehlo.dynamic_gather")
        assert dynamic and all(isinstance(op, shlo.DynamicGatherOp) for op in dynamic)
        assert dynamic[0].dimension_numbers.offset_dims == [2, 3] and dynamic[0].indices_are_sorted is False


@needs_conformance
def test_conformance_scatter_parses_as_op_classes():
    with ir.context():
        scatters = conformance_ops("interpret/scatter.mlir", "stablehlo.scatter")
        assert scatters and all(isinstance(op, shlo.ScatterOp) for op in scatters)
        assert all(isinstance(op.scatter_dimension_numbers, ScatterDimensionNumbers) for op in scatters)
        assert SPEC_SCATTER in [op.scatter_dimension_numbers for op in scatters]
        assert all(len(op.inputs) == len(op.updates) for op in scatters)
