"""Builders and type inference of the control-flow ops, with the specification's examples and broken rules."""

import pytest

from oxla import ir
from oxla.dialects import stablehlo as shlo

from conftest import build, conformance_ops, needs_conformance, parse_ops, raises_rule
V = "tensor<2xi64>"


# if ---------------------------------------------------------------------------------------------------------------

def test_if_spec_example_and_readback():
    b = build(lambda p, t, f: shlo.if_(p, lambda: t, lambda: f), "tensor<i1>", "tensor<i32>", "tensor<i32>")
    assert b.result_types == ["tensor<i32>"]
    op = b.ops("stablehlo.if")[0]
    assert isinstance(op, shlo.IfOp)
    assert str(op.pred.type) == "tensor<i1>"
    assert len(op.true_branch.blocks[0].arguments) == 0 and len(op.false_branch.blocks) == 1
    assert isinstance(op.true_branch.blocks[0].operations[0], shlo.ReturnOp)


def test_if_with_two_results_returns_a_tuple_and_builds_ops_in_branches():
    def body(p, x):
        return shlo.if_(p, lambda: [x, x], lambda: (shlo.negate(x), shlo.add(x, x)))
    b = build(body, "tensor<i1>", V)
    assert b.result_types == [V, V]
    op = b.ops("stablehlo.if")[0]
    assert [o.operation.name for o in op.false_branch.blocks[0].operations] == \
        ["stablehlo.negate", "stablehlo.add", "stablehlo.return"]


def test_if_result_is_the_least_specific_of_the_branches():
    b = build(lambda p, x, y: shlo.if_(p, lambda: x, lambda: y), "tensor<i1>", "tensor<2x?xf32>", "tensor<?x3xf32>")
    assert b.result_types == ["tensor<?x?xf32>"]


def test_if_without_results_and_branches_that_build_their_return():
    def body(p, x):
        out = shlo.if_(p, lambda: [], lambda: shlo.return_())
        assert out == ()
        return shlo.if_(p, lambda: shlo.return_(x), lambda: (shlo.return_(x), None)[1])
    b = build(body, "tensor<i1>", V)
    assert b.result_types == [V]
    assert len(b.ops("stablehlo.if")) == 2


def test_if_branches_use_values_of_the_enclosing_function():
    def body(p, x, y):
        s = shlo.add(x, y)
        return shlo.if_(p, lambda: shlo.multiply(s, x), lambda: shlo.subtract(s, y))
    b = build(body, "tensor<i1>", V, V)
    op = b.ops("stablehlo.if")[0]
    inner = op.true_branch.blocks[0].operations[0]
    assert inner.operation.operands[0].owner.name == "stablehlo.add"  # defined outside the branch


@pytest.mark.parametrize("pred, exc, fragment", [
    ("tensor<i32>", TypeError, "pred must be a 0-dimensional tensor of i1, got tensor<i32>"),
    ("tensor<2xi1>", ValueError, "pred must be a 0-dimensional tensor of i1, got tensor<2xi1>"),
])
def test_if_pred_rules(pred, exc, fragment):
    with raises_rule(exc, "stablehlo.if", fragment):
        build(lambda p, x: shlo.if_(p, lambda: x, lambda: x), pred, V)


def test_if_branch_rules():
    with raises_rule(ValueError, "stablehlo.if", "true_branch and false_branch must return the same number of values, "
                     "got 2 and 1"):
        build(lambda p, x: shlo.if_(p, lambda: [x, x], lambda: x), "tensor<i1>", V)
    with raises_rule(TypeError, "stablehlo.if", "result 0 of true_branch and false_branch must have the same type"):
        build(lambda p, x, y: shlo.if_(p, lambda: x, lambda: y), "tensor<i1>", V, "tensor<2xf32>")
    with raises_rule(ValueError, "stablehlo.if", "must have the same shape, got tensor<2xi64> and tensor<3xi64>"):
        build(lambda p, x, y: shlo.if_(p, lambda: x, lambda: y), "tensor<i1>", V, "tensor<3xi64>")


def test_region_callable_errors():
    with raises_rule(TypeError, "stablehlo.if", "region false_branch: the callable returned None"):
        build(lambda p, x: shlo.if_(p, lambda: x, lambda: None), "tensor<i1>", V)
    with raises_rule(TypeError, "stablehlo.if", "region true_branch: the callable built a return and also returned"):
        build(lambda p, x: shlo.if_(p, lambda: (shlo.return_(x), x)[1], lambda: x), "tensor<i1>", V)
    with raises_rule(TypeError, "stablehlo.if", "region true_branch: expected a callable"):
        build(lambda p, x: shlo.if_(p, x, lambda: x), "tensor<i1>", V)
    with raises_rule(TypeError, "stablehlo.if", "region true_branch result: expected an MLIR value"):
        build(lambda p, x: shlo.if_(p, lambda: [x, 1], lambda: x), "tensor<i1>", V)


def test_a_failed_if_leaves_nothing_behind():
    with ir.context(), ir.Location.unknown():
        from iree.compiler.dialects import func
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("f", ([ir.Type.parse("tensor<i1>"), ir.Type.parse(V)], []))
            block = fn.add_entry_block()
        p, x = block.arguments
        with ir.InsertionPoint(block):
            with pytest.raises(ValueError, match="same number of values"):
                shlo.if_(p, lambda: [x, x], lambda: x)
            with pytest.raises(ZeroDivisionError):
                shlo.if_(p, lambda: shlo.negate(x), lambda: 1 / 0)
        assert len(block.operations) == 0


# case -------------------------------------------------------------------------------------------------------------

def test_case_spec_example_and_readback():
    def body(i, r0, r1):
        return shlo.case_(i, [lambda: [r0, r0], lambda: [r1, r1]])
    b = build(body, "tensor<i32>", V, V)
    assert b.result_types == [V, V]
    op = b.ops("stablehlo.case")[0]
    assert isinstance(op, shlo.CaseOp)
    assert len(op.branches) == 2 and all(len(r.blocks) == 1 for r in op.branches)
    assert str(op.index.type) == "tensor<i32>"


def test_case_with_one_branch_and_with_branches_built_in_every_way():
    assert build(lambda i, x: shlo.case_(i, [lambda: x]), "tensor<i32>", V).result_types == [V]
    b = build(lambda i, x: shlo.case_(i, (lambda: x, lambda: shlo.return_(shlo.negate(x)), lambda: [shlo.abs(x)])),
              "tensor<i32>", V)
    assert b.result_types == [V]
    assert len(b.ops("stablehlo.case")[0].branches) == 3


def test_case_builder_signature_shows_the_variadic_branches():
    assert "case_(index, branches..., *" in shlo.case_.__doc__


@pytest.mark.parametrize("index, exc, fragment", [
    ("tensor<i64>", TypeError, "index must be a 0-dimensional tensor of si32, got tensor<i64>"),
    ("tensor<ui32>", TypeError, "index must be a 0-dimensional tensor of si32"),
    ("tensor<1xi32>", ValueError, "index must be a 0-dimensional tensor of si32, got tensor<1xi32>"),
])
def test_case_index_rules(index, exc, fragment):
    with raises_rule(exc, "stablehlo.case", fragment):
        build(lambda i, x: shlo.case_(i, [lambda: x]), index, V)


def test_case_branch_rules():
    with raises_rule(ValueError, "stablehlo.case", "there must be at least one branch"):
        build(lambda i: shlo.case_(i, []), "tensor<i32>")
    with raises_rule(TypeError, "stablehlo.case", "region branches: expected a list of callables"):
        build(lambda i, x: shlo.case_(i, lambda: x), "tensor<i32>", V)
    with raises_rule(TypeError, "stablehlo.case", "result 0 of branches[0] and branches[2] must have the same type"):
        build(lambda i, x, y: shlo.case_(i, [lambda: x, lambda: x, lambda: y]), "tensor<i32>", V, "tensor<2xf32>")
    with raises_rule(ValueError, "stablehlo.case", "branches[0] and branches[1] must return the same number"):
        build(lambda i, x: shlo.case_(i, [lambda: x, lambda: []]), "tensor<i32>", V)
    with raises_rule(TypeError, "stablehlo.case", "region branches[1]: the callable returned None"):
        build(lambda i, x: shlo.case_(i, [lambda: x, lambda: None]), "tensor<i32>", V)


# while ------------------------------------------------------------------------------------------------------------

def test_while_spec_example_and_readback():
    def body(init_i, init_sum, one, ten):
        return shlo.while_([init_i, init_sum],
                           lambda i, s: shlo.compare(i, ten, "LT"),
                           lambda i, s: [shlo.add(i, one), shlo.add(s, one)])
    s = "tensor<i64>"
    b = build(body, s, s, s, s)
    assert b.result_types == [s, s]
    op = b.ops("stablehlo.while")[0]
    assert isinstance(op, shlo.WhileOp)
    assert [str(a.type) for a in op.cond.blocks[0].arguments] == [s, s]
    assert [str(a.type) for a in op.body.blocks[0].arguments] == [s, s]
    assert len(op.operand) == 2
    assert "cond {" in b.text and "} do {" in b.text


def test_while_with_one_bare_operand_returns_one_value():
    def body(x, limit):
        out = shlo.while_(x, lambda v: shlo.compare(v, limit, "LT"), lambda v: shlo.add(v, v))
        assert isinstance(out, ir.Value)
        listed = shlo.while_([x], lambda v: shlo.compare(v, limit, "LT"), lambda v: [v])
        assert isinstance(listed, tuple) and len(listed) == 1
        return out
    assert build(body, "tensor<f32>", "tensor<f32>").result_types == ["tensor<f32>"]


def test_while_carries_tokens_and_dynamic_shapes():
    def body(t, x, p):
        return shlo.while_([t, x], lambda a, b: p, lambda a, b: [a, b])
    b = build(body, "!stablehlo.token", "tensor<?xf32>", "tensor<i1>")
    assert b.result_types == ["!stablehlo.token", "tensor<?xf32>"]


def test_while_rules():
    s = "tensor<i64>"
    with raises_rule(TypeError, "stablehlo.while", "cond must return a tensor<i1>, got tensor<i64>"):
        build(lambda x: shlo.while_(x, lambda v: v, lambda v: v), s)
    with raises_rule(ValueError, "stablehlo.while", "cond must return one value, a tensor<i1>, got 2"):
        build(lambda x, p: shlo.while_(x, lambda v: [p, p], lambda v: v), s, "tensor<i1>")
    with raises_rule(ValueError, "stablehlo.while", "body must return one value per operand (2), got 1"):
        build(lambda x, p: shlo.while_([x, x], lambda a, b: p, lambda a, b: a), s, "tensor<i1>")
    with raises_rule(TypeError, "stablehlo.while", "operand[0] and body result 0 must have the same type"):
        build(lambda x, p: shlo.while_(x, lambda v: p, lambda v: shlo.convert(v, "f32")), s, "tensor<i1>")
    with raises_rule(ValueError, "stablehlo.while", "operand[0] and body result 0 must have the same shape"):
        build(lambda x, y, p: shlo.while_(x, lambda v: p, lambda v: y), "tensor<2xf32>", "tensor<3xf32>",
              "tensor<i1>")
    with raises_rule(TypeError, "stablehlo.while", "operand[0] must be a tensor or a token, got i32"):
        build(lambda x, p: shlo.while_(x, lambda v: p, lambda v: v), "i32", "tensor<i1>")


def test_while_body_with_an_if_and_a_reduce_using_outer_values():
    def body(n, xs, zero, step):
        def cond(i, acc):
            return shlo.compare(i, n, "LT")  # n comes from the function

        def loop(i, acc):
            total = shlo.reduce(acc, zero, [0], lambda a, b: shlo.add(a, b))
            big = shlo.compare(total, zero, "GT")
            acc = shlo.if_(big, lambda: shlo.subtract(acc, xs), lambda: shlo.add(acc, xs))
            return shlo.add(i, step), acc

        return shlo.while_([step, xs], cond, loop)

    b = build(body, "tensor<i32>", "tensor<4xf32>", "tensor<f32>", "tensor<i32>")
    assert b.result_types == ["tensor<i32>", "tensor<4xf32>"]
    (loop,) = b.ops("stablehlo.while")
    names = [op.operation.name for op in loop.body.blocks[0].operations]
    assert names == ["stablehlo.reduce", "stablehlo.compare", "stablehlo.if", "stablehlo.add", "stablehlo.return"]
    nested_if = loop.body.blocks[0].operations[2]
    assert isinstance(nested_if, shlo.IfOp)
    assert [op.operation.name for op in nested_if.true_branch.blocks[0].operations] == \
        ["stablehlo.subtract", "stablehlo.return"]


def test_reduce_body_inside_an_if_inside_a_while():
    def body(x, init, p):
        def loop(v):
            return shlo.if_(p, lambda: shlo.reduce(v, init, [], lambda a, b: shlo.maximum(a, b)), lambda: v)
        return shlo.while_(x, lambda v: p, loop)
    assert build(body, "tensor<3xf32>", "tensor<f32>", "tensor<i1>").result_types == ["tensor<3xf32>"]


# optimization_barrier and return ----------------------------------------------------------------------------------

def test_optimization_barrier_spec_example():
    b = build(lambda a, c: shlo.optimization_barrier([a, c]), "tensor<f32>", "tensor<f32>")
    assert b.result_types == ["tensor<f32>", "tensor<f32>"]
    op = b.ops("stablehlo.optimization_barrier")[0]
    assert isinstance(op, shlo.OptimizationBarrierOp) and len(op.operand) == 2


def test_optimization_barrier_single_value_and_tokens():
    def body(x, t):
        y = shlo.optimization_barrier(x)
        assert isinstance(y, ir.Value)
        return [y, *shlo.optimization_barrier([t])]
    assert build(body, V, "!stablehlo.token").result_types == [V, "!stablehlo.token"]


def test_optimization_barrier_rules():
    with raises_rule(TypeError, "stablehlo.optimization_barrier", "operand[1] must be a tensor or a token, got i32"):
        build(lambda x, y: shlo.optimization_barrier([x, y]), V, "i32")


def test_return_builder_gives_the_op_and_takes_no_or_many_values():
    ops = []

    def branch(*values):
        ops.append(shlo.return_(*values) if len(values) <= 1 else shlo.return_(list(values)))
        return None

    def body(p, x):
        return shlo.if_(p, lambda: branch(x, x), lambda: branch(x, shlo.negate(x)))
    b = build(body, "tensor<i1>", V)
    assert b.result_types == [V, V]
    assert all(isinstance(op, shlo.ReturnOp) for op in ops)
    assert [len(op.results_) for op in ops] == [2, 2]  # `results` is OpView's
    with raises_rule(TypeError, "stablehlo.return", "operand results: expected an MLIR value"):
        build(lambda p: shlo.if_(p, lambda: shlo.return_(1), lambda: []), "tensor<i1>")


# Parsed text ------------------------------------------------------------------------------------------------------

@needs_conformance
@pytest.mark.parametrize("name, cls, regions", [("if", "IfOp", 2), ("case", "CaseOp", 2), ("while", "WhileOp", 2)])
def test_conformance_control_flow_parses_as_op_classes(name, cls, regions):
    with ir.context():
        ops = conformance_ops(f"interpret/{name}.mlir", f"stablehlo.{name}")
        assert ops and all(type(op) is getattr(shlo, cls) for op in ops)
        assert all(len(op.operation.regions) == regions for op in ops)
        if name == "case":
            assert all(len(op.branches) == 2 and str(op.index.type) == "tensor<i32>" for op in ops)
        if name == "while":
            assert [str(a.type) for a in ops[0].body.blocks[0].arguments] == ["tensor<i64>", "tensor<i64>"]


def test_spec_case_text_parses_as_case_op_with_branch_list():
    text = """func.func @f(%index: tensor<i32>, %a: tensor<2xi64>, %b: tensor<2xi64>) -> tensor<2xi64> {
      %result0, %result1 = "stablehlo.case"(%index) ({
        "stablehlo.return"(%a, %a) : (tensor<2xi64>, tensor<2xi64>) -> ()
      }, {
        "stablehlo.return"(%b, %b) : (tensor<2xi64>, tensor<2xi64>) -> ()
      }, {
        "stablehlo.return"(%b, %a) : (tensor<2xi64>, tensor<2xi64>) -> ()
      }) : (tensor<i32>) -> (tensor<2xi64>, tensor<2xi64>)
      %r = stablehlo.optimization_barrier %result0 : tensor<2xi64>
      return %r : tensor<2xi64>
    }"""
    with ir.context():
        (case,) = parse_ops(text, "stablehlo.case")
        assert isinstance(case, shlo.CaseOp) and len(case.branches) == 3
        ret = case.branches[2].blocks[0].operations[0]
        assert isinstance(ret, shlo.ReturnOp) and len(ret.results_) == 2
        (barrier,) = parse_ops(text, "stablehlo.optimization_barrier")
        assert isinstance(barrier, shlo.OptimizationBarrierOp)
