"""The pass registry and pipelines mixing Python and native passes."""

import enum
import io
import subprocess
import sys
from dataclasses import field

import pytest

from oxla import ir, transforms
from oxla.errors import PassFailure, PipelineError
from oxla.transforms import Pass, register_pass

TWO_FUNCS = """
func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  %1 = stablehlo.add %x, %x : tensor<4xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
func.func @b(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
"""

SEEN: list[tuple[str, str, int]] = []


def _count(op) -> int:
    seen = []
    ir.walk(op, seen.append)
    return len(seen)


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


@register_pass
class RecordOps(Pass):
    """Records how many ops it sees (test helper)."""

    name = "oxla-test-record"
    anchor = "func.func"
    tag: str = "x"
    limit: int = 10
    scale: float = 1.0
    strict: bool = False
    mode: Mode = Mode.FAST
    sizes: list[int] = field(default_factory=list)

    def run(self, op):
        SEEN.append((self.tag, ir.StringAttr(op.attributes["sym_name"]).value, _count(op)))


@register_pass
class FailOnMultiply(Pass):
    """Fails when it finds a multiply (test helper)."""

    name = "oxla-test-fail"
    anchor = None

    def run(self, op):
        def visit(child):
            if child.name == "stablehlo.multiply":
                raise PassFailure("multiply is not allowed here", op=child)

        ir.walk(op, visit)


@register_pass
class Crash(Pass):
    """Raises an ordinary Python exception (test helper)."""

    name = "oxla-test-crash"

    def run(self, op):
        raise ZeroDivisionError("boom")


@pytest.fixture(autouse=True)
def _clear():
    SEEN.clear()


def test_declared_pass_is_a_frozen_dataclass_with_typed_options():
    p = RecordOps.from_options("tag=t limit=0x10 scale=2.5 strict mode=slow sizes=1,2,3")
    assert (p.tag, p.limit, p.scale, p.strict, p.mode, p.sizes) == ("t", 16, 2.5, True, Mode.SLOW, [1, 2, 3])
    assert RecordOps().limit == 10
    with pytest.raises(Exception):
        p.limit = 3
    assert [s.name for s in RecordOps.option_specs()] == ["tag", "limit", "scale", "strict", "mode", "sizes"]
    assert "limit=16" in p.option_text()


def test_registry_lists_python_and_native_passes():
    passes = transforms.list_passes()
    assert passes["oxla-test-record"] == "Records how many ops it sees (test helper)."
    assert "oxla-dce" in passes and "oxla-print-op-stats" in passes and "oxla-strip-locations" in passes
    assert "canonicalize" in passes and "cse" in passes
    assert transforms.lookup("oxla-dce").anchor == "builtin.module"
    assert transforms.lookup("canonicalize") is None


def test_registration_rules():
    class NoDoc(Pass):
        name = "oxla-no-doc"

    class BadName(Pass):
        """Doc."""

        name = "my_pass"

    with pytest.raises(ValueError, match="docstring"):
        register_pass(NoDoc)
    with pytest.raises(ValueError, match="kebab-case"):
        register_pass(BadName)
    with pytest.raises(TypeError):
        register_pass(object)


def test_passes_run_in_pipeline_order():
    module = ir.parse(TWO_FUNCS)
    transforms.run(module, "builtin.module(func.func(oxla-test-record{tag=before}, cse, oxla-test-record{tag=after}))")
    # cse merges the duplicate add of @a only between the two records
    assert SEEN == [("before", "a", 5), ("before", "b", 2), ("after", "a", 4), ("after", "b", 2)]


def test_pipeline_without_anchor_runs_on_the_given_op():
    module = ir.parse(TWO_FUNCS)
    transforms.run(module, "func.func(oxla-test-record),cse")
    assert [s[1] for s in SEEN] == ["a", "b"]


def test_wrong_anchor_is_caught_before_mlir_aborts():
    module = ir.parse(TWO_FUNCS)
    with pytest.raises(PipelineError, match="runs on 'func.func' ops but is scheduled on 'builtin.module'"):
        transforms.run(module, "builtin.module(oxla-test-record)")
    with pytest.raises(PipelineError, match="anchored on 'func.func'"):
        transforms.run(module, "func.func(cse)")


def test_wrong_anchor_in_a_subprocess_does_not_abort():
    code = ("from oxla import ir, transforms\n"
            "m = ir.parse('func.func @f() { return }')\n"
            "try:\n    transforms.run(m, 'builtin.module(func.func(oxla-dce))')\n"
            "except transforms.PipelineError as e:\n    print('caught', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "caught pass 'oxla-dce' runs on 'builtin.module' ops" in out.stdout


@pytest.mark.parametrize(
    "pipeline, message",
    [
        ("builtin.module(canonicalise)", "unknown pass 'canonicalise'; did you mean 'canonicalize'"),
        ("builtin.module(oxla-dec)", "unknown pass 'oxla-dec'; did you mean 'oxla-dce'"),
        ("builtin.module(oxla-dce{functons=false})", "unknown option 'functons' for pass 'oxla-dce'; did you mean 'functions'"),
        ("builtin.module(oxla-dce{functions=maybe})", "invalid value 'maybe' for option 'functions'"),
        ("builtin.module(func.func(oxla-test-record{limit=ten}))", "expected int"),
        ("builtin.module(func.func(oxla-test-record{mode=medium}))", "expected fast | slow"),
        ("builtin.module(canonicalize{max-iterations=x})", "'x' value invalid"),
        ("builtin.module(cse{nonsense=1})", "invalid pass pipeline 'cse{nonsense=1}'"),
    ],
)
def test_bad_pipelines_are_pipeline_errors(pipeline, message):
    with pytest.raises(PipelineError) as info:
        transforms.PassPipeline(pipeline).validate()
    assert message in str(info.value)


def test_pass_failure_points_at_the_op():
    module = ir.parse(TWO_FUNCS, name="f.mlir")
    with pytest.raises(PassFailure) as info:
        transforms.run(module, "oxla-test-fail")
    (diag,) = info.value.diagnostics
    assert (diag.location.file, diag.location.line) == ("f.mlir", 5)
    assert diag.message == "multiply is not allowed here"


def test_a_crashing_pass_becomes_a_failure_with_its_cause():
    module = ir.parse(TWO_FUNCS)
    with pytest.raises(PassFailure, match="pass 'oxla-test-crash' raised ZeroDivisionError: boom") as info:
        transforms.run(module, "oxla-test-crash")
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_native_failure_is_reported_too():
    module = ir.parse(TWO_FUNCS)
    with pytest.raises(PassFailure):
        transforms.run(module, "builtin.module(iree-stablehlo-verify-compiler-input-legality,oxla-test-crash)")


def test_print_before_and_after_named_passes():
    module = ir.parse(TWO_FUNCS)
    stream = io.StringIO()
    transforms.run(module, "builtin.module(func.func(cse), oxla-dce)",
                   print_after=frozenset({"cse"}), print_before=frozenset({"oxla-dce"}), stream=stream)
    text = stream.getvalue()
    assert text.index("IR Dump After cse") < text.index("IR Dump Before oxla-dce")
    after_cse = text.split("IR Dump After cse")[1].split("IR Dump Before")[0]
    assert after_cse.count("stablehlo.add") == 1 and "func.func @b" in after_cse and "module" not in after_cse


def test_module_scope_printing_does_not_abort(capfd):
    module = ir.parse(TWO_FUNCS)
    transforms.run(module, "builtin.module(func.func(cse))", print_after_all=True, print_module_scope=True)
    err = capfd.readouterr().err
    assert "IR Dump After CSEPass" in err and "module {" in err
    assert ir.context().get_num_threads() >= 1


def test_timing_report_names_python_passes(capfd):
    module = ir.parse(TWO_FUNCS)
    transforms.run(module, "builtin.module(func.func(oxla-test-record), cse)", timing=True)
    err = capfd.readouterr().err
    assert "Execution time report" in err and "RecordOps" in err and "CSEPass" in err


def test_walk_passes_exceptions_through_unchanged():
    module = ir.parse(TWO_FUNCS)
    with pytest.raises(KeyError, match="stop"):
        ir.walk(module, lambda op: (_ for _ in ()).throw(KeyError("stop")))
    post = []
    ir.walk(module, lambda op: post.append(op.name), post_order=True)
    assert post[-1] == "builtin.module" and post[0] == "stablehlo.add"


def test_ops_lists_every_nested_op():
    module = ir.parse(TWO_FUNCS)
    names = [op.name for op in ir.ops(module)]
    assert names[0] == "builtin.module" and names.count("func.func") == 2 and names.count("stablehlo.add") == 2
    assert [op.name for op in ir.ops(module, post_order=True)][-1] == "builtin.module"


def test_a_crash_inside_a_raw_walk_keeps_its_message():
    module = ir.parse(TWO_FUNCS)

    @register_pass
    class RawWalkCrash(Pass):
        """Raises from inside Operation.walk (test helper)."""

        name = "oxla-test-raw-walk-crash"

        def run(self, op):
            op.walk(lambda child: 1 / 0)

    with pytest.raises(PassFailure, match="raised RuntimeError: ZeroDivisionError: division by zero"):
        transforms.run(module, "oxla-test-raw-walk-crash")


def test_nested_ops_follows_the_path():
    module = ir.parse(TWO_FUNCS)
    funcs = transforms.nested_ops(module.operation, ("func.func",))
    assert [ir.StringAttr(f.attributes["sym_name"]).value for f in funcs] == ["a", "b"]
    assert transforms.nested_ops(module.operation, ("func.func", "func.return")) != []


def test_native_anchor_names_the_op_a_native_pass_needs():
    from oxla.transforms.native import native_anchor

    assert native_anchor("cse") is None
    assert native_anchor("chlo-legalize-to-stablehlo") == "func.func"


def test_a_pass_may_build_ops_of_dialects_the_input_never_used():
    @register_pass
    class AddIota(Pass):
        """Builds a stablehlo op in a module that had none (test helper)."""

        name = "oxla-test-add-iota"
        anchor = "func.func"

        def run(self, op):
            block = op.regions[0].blocks[0]
            with ir.InsertionPoint.at_block_begin(block):
                ir.Operation.create("stablehlo.iota", results=[ir.RankedTensorType.get([4], ir.F32Type.get())],
                                    attributes={"iota_dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)})

    module = ir.parse("func.func @f() {\n  return\n}\n")
    transforms.run(module, "builtin.module(func.func(oxla-test-add-iota))")
    assert "stablehlo.iota dim = 0 : tensor<4xf32>" in ir.to_text(module)


def test_rewrite_pass_rewrites_each_matching_root_once():
    from oxla.transforms import RewritePass

    @register_pass
    class AddToMultiply(RewritePass):
        """Turns adds of a value with itself into multiplies (test helper)."""

        name = "oxla-test-add-to-multiply"
        roots = ("stablehlo.add",)

        def matches(self, op):
            return op.operands[0] == op.operands[1]

        def rewrite(self, op):
            with ir.InsertionPoint(op):
                new = ir.Operation.create("stablehlo.multiply", results=[op.results[0].type],
                                          operands=[op.operands[0], op.operands[1]])
            op.results[0].replace_all_uses_with(new.result)
            op.erase()

    module = ir.parse(TWO_FUNCS)
    transforms.run(module, "oxla-test-add-to-multiply")
    text = ir.to_text(module)
    assert "stablehlo.add" not in text and text.count("stablehlo.multiply") == 3
