"""Builders and type inference of the distribution ops, with the specification's examples and broken rules."""

from oxla import ir
from oxla.dialects import stablehlo as shlo
from oxla.dialects.stablehlo import distribution as D
from oxla.dialects.stablehlo.attributes import ChannelHandle

from conftest import add_body, build, conformance_ops, needs_conformance, raises_rule

TOKEN = "!stablehlo.token"
I64_2x2 = "tensor<2x2xi64>"


# all_gather -------------------------------------------------------------------------------------------------------

def test_all_gather_spec_example_and_attributes():
    b = build(lambda x, y: D.all_gather([x, y], 1, [[0, 1]], channel_handle=ChannelHandle(0, 0)), I64_2x2, I64_2x2)
    assert b.result_types == ["tensor<2x4xi64>", "tensor<2x4xi64>"]
    op = b.ops("stablehlo.all_gather")[0]
    assert isinstance(op, shlo.AllGatherOp)
    assert (op.all_gather_dim, op.replica_groups, op.channel_handle) == (1, [[0, 1]], ChannelHandle(0, 0))
    assert op.use_global_device_ids is False and "use_global_device_ids" not in b.text


def test_all_gather_group_size_by_mode():
    # cross_replica: the group is one row of replica_groups
    assert build(lambda x: D.all_gather(x, 0, [[0, 2], [1, 3]]), I64_2x2).result_types == ["tensor<4x2xi64>"]
    # flattened_ids: the same, with a positive channel id
    b = build(lambda x: D.all_gather(x, 1, [[0, 1, 2]], channel_handle=1, use_global_device_ids=True), I64_2x2)
    assert b.result_types == ["tensor<2x6xi64>"]
    assert b.ops("stablehlo.all_gather")[0].use_global_device_ids is True
    # cross_replica_and_partition: a group spans every partition (conformance's issue_1933 program)
    b = build(lambda x: D.all_gather(x, 1, [[0, 1]], channel_handle=ChannelHandle(1, 0), num_partitions=2), I64_2x2)
    assert b.result_types == ["tensor<2x8xi64>"]
    assert build(lambda x: D.all_gather(x, 1, [[0, 1]], channel_handle=1), I64_2x2).result_types == ["tensor<2x?xi64>"]


def test_all_gather_mesh_axes_and_dynamic_dimensions():
    mesh = ('#stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", '
            'size = 2>, #stablehlo.mesh_axis<name = "y", size = 4>]>, axes = [#stablehlo.axis_ref<name = "y">]>')
    with ir.context():
        attr = ir.Attribute.parse(mesh)
    b = build(lambda x: D.all_gather(x, 0, attr), I64_2x2)
    assert b.result_types == ["tensor<8x2xi64>"]
    assert isinstance(b.ops("stablehlo.all_gather")[0].replica_groups, ir.Attribute)
    assert build(lambda x: D.all_gather(x, 0, [[0, 1]]), "tensor<?x3xf32>").result_types == ["tensor<?x3xf32>"]


def test_all_gather_rules():
    with raises_rule(ValueError, "stablehlo.all_gather", "all_gather_dim must be in [0, 2)"):
        build(lambda x: D.all_gather(x, 2, [[0, 1]]), I64_2x2)
    with raises_rule(ValueError, "stablehlo.all_gather", "replica_groups must be unique, but id 1 appears twice"):
        build(lambda x: D.all_gather(x, 1, [[0, 1], [1, 2]]), I64_2x2)
    with raises_rule(ValueError, "replica_groups must number the processes 0..1, but 1 is missing"):
        build(lambda x: D.all_gather(x, 1, [[0, 2]]), I64_2x2)
    with raises_rule(ValueError, "replica_groups must hold ids >= 0"):
        build(lambda x: D.all_gather(x, 1, [[0, -1]]), I64_2x2)
    with raises_rule(ValueError, "use_global_device_ids = true needs channel_id > 0"):
        build(lambda x: D.all_gather(x, 1, [[0, 1]], use_global_device_ids=True), I64_2x2)
    with raises_rule(ValueError, "needs non-empty replica_groups"):
        build(lambda x: D.all_gather(x, 1, [], channel_handle=1, use_global_device_ids=True), I64_2x2)
    with raises_rule(ValueError, "must not be empty along all_gather_dim 1"):
        build(lambda x: D.all_gather(x, 1, [[0, 1]]), "tensor<2x0xi64>")
    with raises_rule(ValueError, "attribute replica_groups: expected a 2-D array"):
        build(lambda x: D.all_gather(x, 1, [0, 1]), I64_2x2)


# all_reduce -------------------------------------------------------------------------------------------------------

def test_all_reduce_spec_example_builds_the_computation():
    b = build(lambda x: D.all_reduce([x, x], [[0, 1]], ChannelHandle(0, 0), computation=add_body), "tensor<4xi64>")
    assert b.result_types == ["tensor<4xi64>", "tensor<4xi64>"]
    op = b.ops("stablehlo.all_reduce")[0]
    assert isinstance(op, shlo.AllReduceOp)
    assert op.replica_groups == [[0, 1]] and op.channel_handle == ChannelHandle(0, 0)
    assert [str(a.type) for a in op.computation.blocks[0].arguments] == ["tensor<i64>", "tensor<i64>"]


def test_all_reduce_single_operand_padded_groups_and_global_ids():
    b = build(lambda x: D.all_reduce(x, [[0, 1], [2, -1]], 1, True, computation=add_body), "tensor<2x?xf32>")
    assert b.result_types == ["tensor<2x?xf32>"]
    op = b.ops("stablehlo.all_reduce")[0]
    assert op.replica_groups == [[0, 1], [2, -1]] and op.use_global_device_ids is True


def test_all_reduce_rules():
    with raises_rule(TypeError, "stablehlo.all_reduce", "share one element type"):
        build(lambda x, y: D.all_reduce([x, y], [[0, 1]], computation=add_body), "tensor<4xi64>", "tensor<4xf32>")
    with raises_rule(TypeError, "computation must return an element type promotable from i64, got i1"):
        build(lambda x: D.all_reduce(x, [[0, 1]], computation=lambda a, c: shlo.compare(a, c, "LT")), "tensor<4xi64>")
    with raises_rule(ValueError, "computation must return one 0-d tensor"):
        build(lambda x: D.all_reduce(x, [[0, 1]], computation=lambda a, c: [a, c]), "tensor<4xi64>")
    with raises_rule(ValueError, "use_global_device_ids = true needs channel_id > 0, got channel_id 0"):
        build(lambda x: D.all_reduce(x, [[0, 1]], ChannelHandle(0, 0), True, computation=add_body), "tensor<4xi64>")
    with raises_rule(ValueError, "replica_groups must be unique"):
        build(lambda x: D.all_reduce(x, [[0, 0]], computation=add_body), "tensor<4xi64>")


# all_to_all -------------------------------------------------------------------------------------------------------

def test_all_to_all_spec_example_and_attributes():
    b = build(lambda x, y: D.all_to_all([x, y], 1, 0, 2, [[0, 1]]), "tensor<2x4xi64>", "tensor<2x4xi64>")
    assert b.result_types == ["tensor<4x2xi64>", "tensor<4x2xi64>"]
    op = b.ops("stablehlo.all_to_all")[0]
    assert (op.split_dimension, op.concat_dimension, op.split_count, op.replica_groups) == (1, 0, 2, [[0, 1]])
    assert op.channel_handle is None


def test_all_to_all_same_split_and_concat_dimension_keeps_the_shape():
    assert build(lambda x: D.all_to_all(x, 0, 0, 2, [[0, 1]]), "tensor<4x3xf32>").result_types == ["tensor<4x3xf32>"]
    assert build(lambda x: D.all_to_all(x, 1, 0, 2, [[0, 1]]), "tensor<?x4xf32>").result_types == ["tensor<?x2xf32>"]


def test_all_to_all_rules():
    with raises_rule(ValueError, "stablehlo.all_to_all", "split_dimension must be in [0, 2)"):
        build(lambda x: D.all_to_all(x, 2, 0, 2, [[0, 1]]), "tensor<2x4xi64>")
    with raises_rule(ValueError, "concat_dimension must be in [0, 2)"):
        build(lambda x: D.all_to_all(x, 1, 5, 2, [[0, 1]]), "tensor<2x4xi64>")
    with raises_rule(ValueError, "dimension 1 (split_dimension) must be divisible by split_count 2, got 3"):
        build(lambda x: D.all_to_all(x, 1, 0, 2, [[0, 1]]), "tensor<2x3xi64>")
    with raises_rule(ValueError, "split_count must be positive, got 0"):
        build(lambda x: D.all_to_all(x, 1, 0, 0, [[0, 1]]), "tensor<2x4xi64>")
    with raises_rule(ValueError, "replica_groups must have split_count (2) columns"):
        build(lambda x: D.all_to_all(x, 1, 0, 2, [[0, 1, 2]]), "tensor<2x4xi64>")


# reduce_scatter ---------------------------------------------------------------------------------------------------

def test_reduce_scatter_spec_example_and_attributes():
    b = build(lambda x: D.reduce_scatter(x, 1, [[0, 1]], ChannelHandle(0, 0), computation=add_body), "tensor<2x4xi64>")
    assert b.result_types == ["tensor<2x2xi64>"]
    op = b.ops("stablehlo.reduce_scatter")[0]
    assert isinstance(op, shlo.ReduceScatterOp)
    assert (op.scatter_dimension, op.replica_groups, op.use_global_device_ids) == (1, [[0, 1]], False)


def test_reduce_scatter_across_partitions_needs_their_number():
    b = build(lambda x: D.reduce_scatter(x, 0, [[0, 1]], 1, computation=add_body, num_partitions=2), "tensor<8xf32>")
    assert b.result_types == ["tensor<2xf32>"]
    assert build(lambda x: D.reduce_scatter(x, 0, [[0, 1]], 1, computation=add_body), "tensor<8xf32>").result_types \
        == ["tensor<?xf32>"]


def test_reduce_scatter_rules():
    with raises_rule(ValueError, "stablehlo.reduce_scatter", "scatter_dimension must be in [0, 2)"):
        build(lambda x: D.reduce_scatter(x, 2, [[0, 1]], computation=add_body), "tensor<2x4xi64>")
    with raises_rule(ValueError, "must be divisible by the process group size 2, got 3"):
        build(lambda x: D.reduce_scatter(x, 1, [[0, 1]], computation=add_body), "tensor<2x3xi64>")
    with raises_rule(ValueError, "operand must not be empty along scatter_dimension 1"):
        build(lambda x: D.reduce_scatter(x, 1, [[0, 1]], computation=add_body), "tensor<2x0xi64>")
    with raises_rule(TypeError, "computation must return an element type promotable from f32, got i1"):
        build(lambda x: D.reduce_scatter(x, 1, [[0, 1]], computation=lambda a, c: shlo.compare(a, c, "LT")),
              "tensor<2x4xf32>")


# collective_broadcast, collective_permute, collective_reduce, cross-replica-sum -----------------------------------

def test_collective_broadcast_spec_example_and_dynamic_root():
    b = build(lambda x: D.collective_broadcast(x, [[2, 1]], ChannelHandle(0, 0)), "tensor<1x2xi64>")
    assert b.result_types == ["tensor<1x2xi64>"]
    op = b.ops("stablehlo.collective_broadcast")[0]
    assert (op.replica_groups, op.has_dynamic_root) == ([[2, 1]], False)
    b = build(lambda x, y, r: D.collective_broadcast([x, y, r], [[0, 1]], has_dynamic_root=True),
              "tensor<1x2xi64>", "tensor<3xf32>", "tensor<2xi32>")
    assert b.result_types == ["tensor<1x2xi64>", "tensor<3xf32>"]
    assert b.ops("stablehlo.collective_broadcast")[0].has_dynamic_root is True


def test_collective_broadcast_rules():
    with raises_rule(ValueError, "stablehlo.collective_broadcast", "replica_groups must hold ids >= 0"):
        build(lambda x: D.collective_broadcast(x, [[0, -2]]), "tensor<2xf32>")
    with raises_rule(ValueError, "replica_groups must be unique"):
        build(lambda x: D.collective_broadcast(x, [[1, 1]]), "tensor<2xf32>")
    with raises_rule(TypeError, "the last operand (root indices) must be a rank-1 i32 tensor"):
        build(lambda x, r: D.collective_broadcast([x, r], [[0, 1]], has_dynamic_root=True), "tensor<2xf32>",
              "tensor<1xi64>")
    with raises_rule(ValueError, "the root indices must have one entry per data operand (1)"):
        build(lambda x, r: D.collective_broadcast([x, r], [[0, 1]], has_dynamic_root=True), "tensor<2xf32>",
              "tensor<2xi32>")
    with raises_rule(ValueError, "has_dynamic_root needs the data operands and then the root indices"):
        build(lambda r: D.collective_broadcast([r], [[0, 1]], has_dynamic_root=True), "tensor<1xi32>")


def test_collective_permute_spec_example_and_rules():
    b = build(lambda x: D.collective_permute(x, [[0, 1], [1, 2]], ChannelHandle(0, 0)), I64_2x2)
    assert b.result_types == [I64_2x2]
    op = b.ops("stablehlo.collective_permute")[0]
    assert (op.source_target_pairs, op.channel_handle) == ([[0, 1], [1, 2]], ChannelHandle(0, 0))
    with raises_rule(ValueError, "stablehlo.collective_permute", "source_target_pairs must have unique sources"):
        build(lambda x: D.collective_permute(x, [[0, 1], [0, 2]]), I64_2x2)
    with raises_rule(ValueError, "source_target_pairs must have unique targets"):
        build(lambda x: D.collective_permute(x, [[0, 1], [2, 1]]), I64_2x2)
    with raises_rule(ValueError, "source_target_pairs must hold ids >= 0"):
        build(lambda x: D.collective_permute(x, [[0, -1]]), I64_2x2)
    with raises_rule(ValueError, "attribute source_target_pairs: expected a [N, 2] array"):
        build(lambda x: D.collective_permute(x, [[0, 1, 2]]), I64_2x2)


def test_collective_reduce_with_and_without_dynamic_root():
    b = build(lambda x: D.collective_reduce(x, [[0, 1, 2, 3]], ChannelHandle(0, 0), computation=add_body),
              "tensor<1x2xi64>")
    assert b.result_types == ["tensor<1x2xi64>"]
    op = b.ops("stablehlo.collective_reduce")[0]
    assert (op.replica_groups, op.has_dynamic_root, op.use_global_device_ids) == ([[0, 1, 2, 3]], False, False)
    b = build(lambda x, r: D.collective_reduce([x, r], [[0, 1]], has_dynamic_root=True, computation=add_body),
              "tensor<4xf32>", "tensor<1xi32>")
    assert b.result_types == ["tensor<4xf32>"]
    assert [str(a.type) for a in b.ops("stablehlo.collective_reduce")[0].computation.blocks[0].arguments] \
        == ["tensor<f32>", "tensor<f32>"]


def test_collective_reduce_rules():
    with raises_rule(ValueError, "stablehlo.collective_reduce", "root indices must have one entry per data operand"):
        build(lambda x, r: D.collective_reduce([x, r], [[0, 1]], has_dynamic_root=True, computation=add_body),
              "tensor<4xf32>", "tensor<3xi32>")
    with raises_rule(ValueError, "use_global_device_ids = true needs channel_id > 0"):
        build(lambda x: D.collective_reduce(x, [[0, 1]], use_global_device_ids=True, computation=add_body),
              "tensor<4xf32>")


def test_cross_replica_sum_is_registered_under_its_dashed_name():
    b = build(lambda x: D.cross_replica_sum(x, [[0, 1]]), "tensor<4xf32>")
    assert b.result_types == ["tensor<4xf32>"]
    op = b.ops("stablehlo.cross-replica-sum")[0]
    assert type(op).__name__ == "CrossReplicaSumOp" and op.replica_groups == [[0, 1]]
    assert shlo.cross_replica_sum is D.cross_replica_sum
    with raises_rule(ValueError, "stablehlo.cross-replica-sum", "replica_groups must be unique"):
        build(lambda x: D.cross_replica_sum(x, [[0, 0]]), "tensor<4xf32>")


# Process ids and tokens -------------------------------------------------------------------------------------------

def test_partition_id_replica_id_and_create_token():
    b = build(lambda: [D.partition_id(), D.replica_id(), D.create_token()])
    assert b.result_types == ["tensor<ui32>", "tensor<ui32>", TOKEN]
    assert isinstance(b.ops("stablehlo.partition_id")[0], shlo.PartitionIdOp)
    assert isinstance(b.ops("stablehlo.replica_id")[0], shlo.ReplicaIdOp)


def test_after_all_spec_example_and_rule():
    b = build(lambda a, c: D.after_all([a, c]), TOKEN, TOKEN)
    assert b.result_types == [TOKEN]
    assert len(b.ops("stablehlo.after_all")[0].inputs) == 2
    assert build(lambda: D.after_all([])).result_types == [TOKEN]
    with raises_rule(TypeError, "stablehlo.after_all", "inputs[1] must be a !stablehlo.token, got tensor<f32>"):
        build(lambda a, x: D.after_all([a, x]), TOKEN, "tensor<f32>")


# send, recv, infeed, outfeed --------------------------------------------------------------------------------------

def test_send_spec_example_and_attributes():
    b = build(lambda x, tok: D.send(x, tok, ChannelHandle(0, 1), False, [[0, 1], [1, 2]]), I64_2x2, TOKEN)
    assert b.result_types == [TOKEN]
    op = b.ops("stablehlo.send")[0]
    assert (op.channel_handle, op.is_host_transfer, op.source_target_pairs) == \
        (ChannelHandle(0, 1), False, [[0, 1], [1, 2]])
    assert op.token.type == ir.Type.parse(TOKEN, ir.context())
    b = build(lambda x, y, tok: D.send([x, y], tok, ChannelHandle(1, 2), is_host_transfer=True), I64_2x2, "tensor<f32>",
              TOKEN)
    assert b.ops("stablehlo.send")[0].is_host_transfer is True


def test_send_rules():
    with raises_rule(ValueError, "stablehlo.send", "is_host_transfer = false needs channel_handle type 1"):
        build(lambda x, tok: D.send(x, tok, ChannelHandle(0, 2)), I64_2x2, TOKEN)
    with raises_rule(ValueError, "is_host_transfer = true needs channel_handle type 2 (DEVICE_TO_HOST), got 1"):
        build(lambda x, tok: D.send(x, tok, 1, is_host_transfer=True), I64_2x2, TOKEN)
    with raises_rule(TypeError, "token must be a !stablehlo.token"):
        build(lambda x: D.send(x, x, 1), I64_2x2)
    with raises_rule(TypeError, "inputs[0] must be a tensor"):
        build(lambda tok: D.send([tok], tok, 1), TOKEN)
    with raises_rule(ValueError, "source_target_pairs must have unique targets"):
        build(lambda x, tok: D.send(x, tok, 1, source_target_pairs=[[0, 1], [2, 1]]), I64_2x2, TOKEN)


def test_recv_spec_example_and_host_transfer():
    b = build(lambda tok: D.recv(tok, [I64_2x2], ChannelHandle(0, 1), False, [[0, 1], [1, 2]]), TOKEN)
    assert b.result_types == [I64_2x2, TOKEN]
    op = b.ops("stablehlo.recv")[0]
    assert (op.channel_handle, op.source_target_pairs) == (ChannelHandle(0, 1), [[0, 1], [1, 2]])
    b = build(lambda tok: D.recv(tok, [shlo.TensorSpec.of((3,), "f32")], ChannelHandle(1, 3), is_host_transfer=True),
              TOKEN)
    assert b.result_types == ["tensor<3xf32>", TOKEN]


def test_recv_rules():
    with raises_rule(ValueError, "stablehlo.recv", "is_host_transfer = true needs channel_handle type 3 (HOST_TO_"):
        build(lambda tok: D.recv(tok, [I64_2x2], ChannelHandle(1, 2), is_host_transfer=True), TOKEN)
    with raises_rule(ValueError, "payload_types[0] must be statically shaped"):
        build(lambda tok: D.recv(tok, ["tensor<?xf32>"], 1), TOKEN)
    with raises_rule(TypeError, "payload_types[0] must be a tensor type"):
        build(lambda tok: D.recv(tok, [TOKEN], 1), TOKEN)


def test_infeed_spec_example_layout_and_rules():
    b = build(lambda tok: D.infeed(tok, [I64_2x2], infeed_config="cfg", layout=[[1, 0]]), TOKEN)
    assert b.result_types == [I64_2x2, TOKEN]
    op = b.ops("stablehlo.infeed")[0]
    assert (op.infeed_config, op.layout) == ("cfg", [[1, 0]])
    assert build(lambda tok: D.infeed(tok, []), TOKEN).result_types == [TOKEN]
    with raises_rule(ValueError, "stablehlo.infeed", "layout must have one entry per payload tensor (1)"):
        build(lambda tok: D.infeed(tok, [I64_2x2], layout=[[0, 1], [1, 0]]), TOKEN)
    with raises_rule(TypeError, "token must be a !stablehlo.token"):
        build(lambda x: D.infeed(x, [I64_2x2]), I64_2x2)


def test_outfeed_spec_example_and_rule():
    b = build(lambda x, tok: D.outfeed([x], tok, "cfg"), "tensor<2x2x2xi64>", TOKEN)
    assert b.result_types == [TOKEN]
    assert b.ops("stablehlo.outfeed")[0].outfeed_config == "cfg"
    with raises_rule(TypeError, "stablehlo.outfeed", "token must be a !stablehlo.token"):
        build(lambda x: D.outfeed([x], x), I64_2x2)


# async_start and async_done ---------------------------------------------------------------------------------------

def test_async_start_and_done_spec_example():
    def body(x):
        future = D.async_start(x, body=lambda a: D.all_gather(a, 1, [[0, 2, 4, 6], [1, 3, 5, 7]]))
        assert str(future.type) == "!stablehlo.future<tensor<8x8xf32>>"
        return D.async_done(future)
    b = build(body, "tensor<8x2xf32>")
    assert b.result_types == ["tensor<8x8xf32>"]
    start = b.ops("stablehlo.async_start")[0]
    assert isinstance(start, shlo.AsyncStartOp)
    assert [str(a.type) for a in start.body.blocks[0].arguments] == ["tensor<8x2xf32>"]
    assert D.future_contents(start.result.type) == ["tensor<8x8xf32>"]


def test_async_rules():
    with raises_rule(TypeError, "stablehlo.async_done", "operand must be a future of one value"):
        build(lambda x: D.async_done(x), "tensor<2xf32>")
    with raises_rule(ValueError, "stablehlo.async_start", "body must return exactly one value, got 2"):
        build(lambda x: D.async_start(x, body=lambda a: [a, a]), "tensor<2xf32>")


# Parsed conformance programs --------------------------------------------------------------------------------------

def _parsed(name: str, op: str, chunk: int = 0) -> list:
    """The ops named `op` in one `// -----` chunk of an interpreter program (its run_parallel is unregistered)."""
    return conformance_ops(f"interpret/{name}", op, chunk, allow_unregistered=True)


@needs_conformance
def test_conformance_collectives_parse_as_op_classes_with_python_attributes():
    gather = _parsed("all_gather.mlir", "stablehlo.all_gather", 1)[0]
    assert isinstance(gather, shlo.AllGatherOp)
    assert (gather.all_gather_dim, gather.replica_groups, gather.channel_handle) == (1, [[0, 1]], ChannelHandle(1, 0))
    permute = _parsed("collective_permute.mlir", "stablehlo.collective_permute")[0]
    assert isinstance(permute, shlo.CollectivePermuteOp)
    assert permute.source_target_pairs == [[0, 1], [1, 2], [3, 3], [4, 4]]
    to_all = _parsed("all_to_all.mlir", "stablehlo.all_to_all")[0]
    assert (to_all.split_dimension, to_all.concat_dimension, to_all.split_count) == (1, 0, 2)


@needs_conformance
def test_conformance_send_recv_parse_as_op_classes_with_python_attributes():
    send = _parsed("send_recv.mlir", "stablehlo.send")[0]
    recv = _parsed("send_recv.mlir", "stablehlo.recv")[0]
    assert isinstance(send, shlo.SendOp) and isinstance(recv, shlo.RecvOp)
    assert (send.channel_handle, send.is_host_transfer) == (ChannelHandle(1, 2), True)
    assert (recv.channel_handle, recv.is_host_transfer) == (ChannelHandle(1, 3), True)
    assert len(send.inputs) == 1 and str(send.token.type) == TOKEN
