"""oxla.dialects.dispatch_tensors: binding types and views of a binding's bytes."""

from oxla import ir
from oxla.dialects.dispatch_tensors import binding_view, bound_tensor_type, dispatch_tensor_type

_MODULE = """
#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>,
                                           #hal.pipeline.binding<storage_buffer>]>
func.func @f() {
  %c64 = arith.constant 64 : index
  %0 = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c64) flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x8xi8>>
  %1 = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c64) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<16xf32>>
  %2 = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c64) : !iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xcomplex<f32>>>
  return
}
"""


def _tensor(text: str):
    return ir.RankedTensorType(ir.Type.parse(text, context=ir.context()))


def _subspans():
    module = ir.parse(_MODULE)
    return module, [op for op in ir.ops(module) if op.name == "hal.interface.binding.subspan"][:2]


def test_bound_tensor_type_of_complex_elements():
    module = ir.parse(_MODULE)
    complex_subspan = [op for op in ir.ops(module) if op.name == "hal.interface.binding.subspan"][2]
    assert str(bound_tensor_type(complex_subspan)) == "tensor<8xcomplex<f32>>"
    view = binding_view(complex_subspan, _tensor("tensor<2x4xcomplex<f32>>")).owner
    assert str(view.results[0].type) == "!iree_tensor_ext.dispatch.tensor<writeonly:tensor<2x4xcomplex<f32>>>"


def test_binding_type_carries_access_and_tensor():
    tensor = _tensor("tensor<2x3xf32>")
    assert str(dispatch_tensor_type("readwrite", tensor)) == "!iree_tensor_ext.dispatch.tensor<readwrite:tensor<2x3xf32>>"


def test_bound_tensor_type_reads_the_subspan():
    _, (read, written) = _subspans()
    assert str(bound_tensor_type(read)) == "tensor<4x8xi8>"
    assert str(bound_tensor_type(written)) == "tensor<16xf32>"


def test_view_keeps_binding_offset_and_access():
    module, (read, written) = _subspans()
    view = binding_view(read, _tensor("tensor<4x2xi32>")).owner
    halves = binding_view(written, _tensor("tensor<32xf16>")).owner
    assert str(view.results[0].type) == "!iree_tensor_ext.dispatch.tensor<readonly:tensor<4x2xi32>>"
    assert str(halves.results[0].type) == "!iree_tensor_ext.dispatch.tensor<writeonly:tensor<32xf16>>"
    for new, old in ((view, read), (halves, written)):
        assert list(new.operands) == list(old.operands)
        assert {n: str(new.attributes[n]) for n in new.attributes} == {n: str(old.attributes[n]) for n in old.attributes}
    order = [op for op in ir.ops(module) if op.name == "hal.interface.binding.subspan"]
    assert order[:4] == [view, read, halves, written]  # each view just before its subspan
    ir.verify_or_raise(module)
