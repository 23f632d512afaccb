"""oxla-vm-distinct-branch-refs: no branch of the VM program passes one ref twice.

IREE's VM bytecode encoder (3.13) gives each branch operand that is a ref
either a retain or a MOVE into its block argument's register. When a branch
passes the same ref to two block arguments and the encoder coalesces one of
them with the source register, the other may still be a MOVE, which clears
that register: the second block argument then holds null (iree-org/iree
issue 24753; its fix, pull request 24781, is not in the pinned release). This happens where
a host loop carries two tensors that IREE's stream phase placed in one
allocation: at the loop's exit both are the same `!hal.buffer`, and the
first dispatch that reads the nulled one fails with "indirect buffer
reference slot 0 is out range of the declared binding capacity" (a complex
Hermitian eigendecomposition's rotated matrix and eigenvector rows did).

This pass, run by oxla.compile on every VM module it returns or serializes,
gives every repeated ref operand of a `vm.br`, `vm.cond_br` or `vm.br_table`
after the first a value of its own: the ref cast to `!vm.ref<?>` and back,
which the encoder treats as another register holding the same object.
"""

from __future__ import annotations

from oxla import ir
from oxla.transforms.registry import Pass, register_pass

_BRANCHES = ("vm.br", "vm.cond_br", "vm.br_table")


def _is_ref(value) -> bool:
    """Whether `value` is a VM ref (of any object type)."""
    return str(value.type).startswith("!vm.ref<")


def _same_object(value, branch):
    """A new value holding the ref `value` (a cast to !vm.ref<?> and back), built just before `branch`."""
    with ir.InsertionPoint(branch), branch.location:
        opaque = ir.Operation.create("vm.cast.ref.any", results=[ir.Type.parse("!vm.ref<?>")], operands=[value])
        return ir.Operation.create("vm.cast.any.ref", results=[value.type], operands=[opaque.results[0]]).results[0]


def _distinct_refs(branch) -> None:
    """Replaces each ref operand of `branch` that an earlier operand already passes."""
    seen = []
    for index, value in enumerate(list(branch.operands)):
        if not _is_ref(value):
            continue
        if any(value == other for other in seen):
            branch.operands[index] = _same_object(value, branch)
        else:
            seen.append(value)


@register_pass
class DistinctBranchRefs(Pass):
    """Gives each repeated ref operand of a VM branch a value of its own (an IREE encoder bug nulls one)."""

    name = "oxla-vm-distinct-branch-refs"
    anchor = "builtin.module"

    def run(self, module) -> None:
        """Rewrites every branch of the module's VM functions that passes a ref twice."""
        for op in [op for op in ir.ops(module) if op.name in _BRANCHES]:
            _distinct_refs(op)
