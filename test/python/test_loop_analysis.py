"""oxla.transforms.loop_analysis: which ops run every trip, which values stay the same."""

from oxla import ir
from oxla.transforms.loop_analysis import LoopAnalysis

# A fori_loop as JAX exports it: the body calls @step with the carried values; %w is handed back
# unchanged, %h is replaced every trip, and @step also computes w^T (from w alone) and h + 1.
_LOOP = """
func.func @main(%w: tensor<8x8xf32>, %h0: tensor<4x8xf32>, %x: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %outside = stablehlo.add %x, %x : tensor<8x8xf32>
  %r:3 = stablehlo.while(%i = %c0, %wi = %w, %h = %h0) : tensor<i32>, tensor<8x8xf32>, tensor<4x8xf32>
    cond {
      %n = stablehlo.constant dense<16> : tensor<i32>
      %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %next = stablehlo.add %i, %one : tensor<i32>
      %direct = stablehlo.dot_general %h, %outside, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("direct")
      %h2 = func.call @step(%wi, %direct) : (tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      stablehlo.return %next, %wi, %h2 : tensor<i32>, tensor<8x8xf32>, tensor<4x8xf32>
    }
  %once = stablehlo.dot_general %r#2, %x, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("once")
  return %once : tensor<4x8xf32>
}
func.func private @step(%w: tensor<8x8xf32>, %h: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %wt = stablehlo.transpose %w, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %y = stablehlo.dot_general %h, %wt, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> loc("y")
  %hh = stablehlo.add %h, %h : tensor<4x8xf32>
  %hh8 = stablehlo.slice %hh [0:4, 0:8] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %z = stablehlo.dot_general %y, %hh8, contracting_dims = [0] x [0] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32> loc("z")
  %zz = stablehlo.slice %z [0:4, 0:8] : (tensor<8x8xf32>) -> tensor<4x8xf32>
  return %zz : tensor<4x8xf32>
}
"""


def _dots(module) -> dict[str, object]:
    """The module's dot_general ops by their location's name."""
    return {str(op.location)[5:-2]: op for op in ir.ops(module) if op.name == "stablehlo.dot_general"}


def test_ops_in_a_while_and_in_functions_its_body_calls_repeat():
    module = ir.parse(_LOOP)
    loops = LoopAnalysis(module)
    assert loops.looped == {"step"}
    dots = _dots(module)
    assert {name: loops.repeated(op) for name, op in dots.items()} == {
        "direct": True, "once": False, "y": True, "z": True}


def test_values_carried_unchanged_or_from_outside_stay_the_same_every_trip():
    module = ir.parse(_LOOP)
    loops = LoopAnalysis(module)
    dots = _dots(module)
    right = {name: loops.invariant(op.operands[1]) for name, op in dots.items()}
    # %outside: computed before the loop; w^T: from the carried w; %hh8: from h, which changes
    assert right == {"direct": True, "once": True, "y": True, "z": False}
    left = {name: loops.invariant(op.operands[0]) for name, op in dots.items()}
    assert left == {"direct": False, "once": True, "y": False, "z": False}


def test_a_function_called_with_a_changing_value_has_a_changing_argument():
    text = _LOOP.replace("func.call @step(%wi, %direct)", "func.call @step(%direct8, %direct)").replace(
        "%h2 = func.call", "%direct8 = stablehlo.dot_general %direct, %direct, contracting_dims = [0] x [0] : "
        "(tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>\n      %h2 = func.call")
    module = ir.parse(text)
    loops = LoopAnalysis(module)
    assert not loops.invariant(_dots(module)["y"].operands[1])


def test_a_carried_value_the_body_replaces_changes():
    text = _LOOP.replace("stablehlo.return %next, %wi, %h2", "stablehlo.return %next, %outside, %h2")
    module = ir.parse(text)
    loops = LoopAnalysis(module)
    assert not loops.invariant(_dots(module)["y"].operands[1])


def test_a_long_chain_inside_the_loop_is_traced_no_further_than_the_limit():
    chain = "\n".join(f"  %t{i + 1} = stablehlo.negate %t{i} : tensor<8x8xf32>" for i in range(300))
    text = _LOOP.replace("  %wt = stablehlo.transpose %w, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>",
                         f"  %t0 = stablehlo.transpose %w, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>\n{chain}\n"
                         "  %wt = stablehlo.negate %t300 : tensor<8x8xf32>")
    module = ir.parse(text)
    loops = LoopAnalysis(module)
    assert not loops.invariant(_dots(module)["y"].operands[1])  # invariant, but past the limit: "changing"
    short = ir.parse(_LOOP)
    assert LoopAnalysis(short).invariant(_dots(short)["y"].operands[1])
