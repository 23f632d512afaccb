"""Distribution ops: collectives across processes, point-to-point and host transfers, tokens, process ids.

Collectives split the process grid into process groups from `replica_groups`
(a 2-D list of ints, one row per group, or a ready
`#stablehlo.replica_group_mesh_axes` attribute) and `channel_handle` (an int
channel id, a `ChannelHandle`, or a dict of its fields). Result shapes that
depend on the size of a process group use the number of columns of
`replica_groups`; in the `cross_replica_and_partition` mode (a positive
channel id without `use_global_device_ids`) a group also spans every
partition, so those builders take `num_partitions` (the result dimension is
dynamic without it).

The reducing collectives take a `computation` callable of two 0-d tensors of
the operands' element type, returning one 0-d tensor whose element type (the
operands' or a wider one of the same kind) becomes the results'. Payload
types of `recv` and `infeed` are given as `payload_types` (the token result
is added). `async_start` wraps one collective or slice built by its `body`
callable, which receives the operands as block arguments.
"""

from __future__ import annotations

import re

import numpy as np

from oxla import ir
from oxla.dialects.elements import to_numpy
from oxla.dialects.stablehlo import attributes as A
from oxla.dialects.stablehlo import types as T
from oxla.dialects.stablehlo._core import REQUIRED, Attr, Operand, OpSpec, Param, Region, _as_types, export
from oxla.dialects.stablehlo.rules import elem, fail, require, shape, tensor

FAMILY = "distribution"


# Attribute kinds --------------------------------------------------------------------------------------------------

class ReplicaGroups(A.AttrKind):
    """replica_groups: a 2-D list of ints (`[]` for none) <-> dense i64 elements; mesh-axes attributes pass as is."""

    def to_attr(self, value):
        if isinstance(value, (list, tuple)) and len(value) == 0:
            return ir.Attribute.parse("dense<> : tensor<0x0xi64>")
        return A.I64Matrix().to_attr(value)

    def to_python(self, attr):
        return to_numpy(attr).astype(np.int64).tolist() if isinstance(attr, ir.DenseElementsAttr) else attr


CHANNEL = A.Canonical(A.ChannelHandleKind(A.ChannelHandle, "channel_handle"))
PAIRS = A.I64Matrix(2)


# Shared checks ----------------------------------------------------------------------------------------------------

def _channel_id(args) -> int:
    """The channel id (0 when there is no channel_handle)."""
    handle = getattr(args, "channel_handle", None)
    return 0 if handle is None else handle.handle


def _dense_groups(args) -> list | None:
    """replica_groups as a list of rows, or None for a mesh-axes attribute."""
    groups = args.replica_groups
    return None if isinstance(groups, ir.Attribute) else [list(row) for row in groups]


def _check_groups(args, padding_allowed: bool = False) -> None:
    """replica_groups is 2-D, names each process once, and numbers them 0..N-1 (C: is_unique, 0 <= id < N)."""
    groups = _dense_groups(args)
    if groups is None:
        return
    require(all(isinstance(row, list) for row in groups), f"replica_groups must be 2-D, got {args.replica_groups}")
    seen = set()
    for i in (i for row in groups for i in row):
        if i == -1 and padding_allowed:
            continue  # pads groups shorter than the longest
        require(i >= 0, f"replica_groups must hold ids >= 0, got {i}")
        require(i not in seen, f"replica_groups must be unique, but id {i} appears twice")
        seen.add(i)
    missing = [i for i in range(len(seen)) if i not in seen]
    if missing:
        fail(f"replica_groups must number the processes 0..{len(seen) - 1}, but {missing[0]} is missing")


def _check_global_ids(args) -> None:
    """use_global_device_ids needs a positive channel id and some replica groups."""
    if not args.use_global_device_ids:
        return
    require(_channel_id(args) > 0,
            f"use_global_device_ids = true needs channel_id > 0, got channel_id {_channel_id(args)}")
    groups = _dense_groups(args)
    require(groups is None or any(groups), "use_global_device_ids = true needs non-empty replica_groups")


def _mesh_group_size(attr) -> int | None:
    """The number of processes in a group of a mesh-axes attribute (None when the mesh is a symbol)."""
    text = str(attr)
    mesh = re.search(r"mesh = #stablehlo\.mesh<axes\s*=\s*\[(.*?)\]", text)
    if mesh is None:
        return None
    sizes = dict(re.findall(r'name = "([^"]*)", size = (\d+)', mesh.group(1)))
    n = 1
    for ref in re.findall(r"#stablehlo\.axis_ref<([^>]*>?)>", text):
        sub = re.search(r"\((\d+)\)(\d+)", ref)
        name = re.search(r'name = "([^"]*)"', ref).group(1)
        n *= int(sub.group(2)) if sub else int(sizes.get(name, 0))
    return n or None


def _group_size(args) -> int | None:
    """dim(process_groups, 1): the processes in each group, or None when it is not known statically."""
    groups = _dense_groups(args)
    if groups is None:
        size = _mesh_group_size(args.replica_groups)
    else:
        size = len(groups[0]) if groups and groups[0] else None
    if size is not None and _channel_id(args) > 0 and not getattr(args, "use_global_device_ids", False):
        partitions = getattr(args, "num_partitions", None)  # cross_replica_and_partition spans every partition
        size = None if partitions is None else size * partitions
    return size


def _check_pairs(pairs, what: str = "source_target_pairs") -> None:
    """Pairs of [source, target] ids, each id >= 0, no source and no target repeated (C1-C4)."""
    for column, role in ((0, "sources"), (1, "targets")):
        ids = [int(p[column]) for p in pairs]
        require(all(i >= 0 for i in ids), f"{what} must hold ids >= 0, got {pairs}")
        require(len(set(ids)) == len(ids), f"{what} must have unique {role}, got {pairs}")


def _dim_of(args, value, name: str, attribute: str) -> int:
    """Checks 0 <= attribute < rank(value); returns the attribute."""
    d, n = getattr(args, attribute), len(shape(value))
    require(0 <= d < n, f"{attribute} must be in [0, {n}) for {name} of rank {n}, got {d}")
    return d


def _reduced(args) -> list:
    """The operands a reducing collective reduces (without the trailing root indices of has_dynamic_root)."""
    if hasattr(args, "operand"):
        return [args.operand]
    return args.operands[:-1] if getattr(args, "has_dynamic_root", False) else list(args.operands)


def _reducer_block(args) -> list:
    """The computation's block: two 0-d tensors of the (one) element type of the reduced operands."""
    values = _reduced(args)
    require(values, "there must be at least one operand to reduce")
    e = elem(values[0])
    for i, v in enumerate(values):
        shape(v)
        require(elem(v) == e, f"the reduced operands must share one element type for the computation, got {e} "
                f"and {elem(v)} (operand {i})", TypeError)
    return [tensor((), e)] * 2


def _accumulator(args) -> ir.Type:
    """E: the element type the computation returns, promotable from the operands' (C: computation's type)."""
    returned = args.region_results[0]
    require(len(returned) == 1 and T.is_tensor(returned[0]) and not shape(returned[0]),
            f"computation must return one 0-d tensor, got ({', '.join(map(str, returned))})")
    e, source = elem(returned[0]), elem(_reduced(args)[0])
    same_kind = any(check(e) and check(source) for check in (T.is_integer, T.is_bool, T.is_float, T.is_complex,
                                                             T.is_quantized))
    require(same_kind and (T.is_float(e) or T.is_quantized(e) or T.bit_width(e) >= T.bit_width(source)),
            f"computation must return an element type promotable from {source}, got {e}", TypeError)
    return e


def _check_dynamic_root(args, op: str) -> None:
    """With has_dynamic_root the last operand is a rank-1 i32 tensor of one root per data operand."""
    if not args.has_dynamic_root:
        return
    require(len(args.operands) >= 2, f"{op} with has_dynamic_root needs the data operands and then the root indices")
    root, n = args.operands[-1], len(args.operands) - 1
    require(T.is_tensor(root.type) and str(elem(root)) == "i32" and len(shape(root)) == 1,
            f"the last operand (root indices) must be a rank-1 i32 tensor, got {root.type}", TypeError)
    require(shape(root)[0] in (None, n), f"the root indices must have one entry per data operand ({n}), "
            f"got {root.type}")


# Collectives ------------------------------------------------------------------------------------------------------

def _all_gather(args):
    """Each result is its operand with all_gather_dim scaled by the process group size (C1-C6)."""
    _check_groups(args)
    _check_global_ids(args)
    n = _group_size(args)
    results = []
    for i, v in enumerate(args.operands):
        dims = list(shape(v))
        d = _dim_of(args, v, f"operands[{i}]", "all_gather_dim")
        require(dims[d] != 0, f"operands[{i}] must not be empty along all_gather_dim {d}")
        dims[d] = None if dims[d] is None or n is None else dims[d] * n
        results.append(tensor(dims, elem(v)))
    return results


export(OpSpec("all_gather", (Operand("operands", variadic=True), Attr("all_gather_dim", A.Integer(), REQUIRED),
                             Attr("replica_groups", ReplicaGroups(), REQUIRED), Attr("channel_handle", CHANNEL),
                             Attr("use_global_device_ids", A.Unit(), False), Param("num_partitions", None)),
              _all_gather, results="variadic", family=FAMILY,
              doc="Concatenates the operands of every process in a group along all_gather_dim."), globals())


def _all_reduce(args):
    """Results keep the operands' shapes with the computation's element type (C1-C7)."""
    _check_groups(args, padding_allowed=True)
    _check_global_ids(args)
    e = _accumulator(args)
    return [tensor(shape(v), e) for v in args.operands]


export(OpSpec("all_reduce", (Operand("operands", variadic=True), Attr("replica_groups", ReplicaGroups(), REQUIRED),
                             Attr("channel_handle", CHANNEL), Attr("use_global_device_ids", A.Unit(), False),
                             Region("computation", _reducer_block)),
              _all_reduce, results="variadic", family=FAMILY, infer_after_regions=True,
              doc="Reduces the operands across the processes of each group with the computation."), globals())


def _all_to_all(args):
    """Each operand splits split_count ways along split_dimension and gathers along concat_dimension (C1-C9)."""
    count = args.split_count
    require(count > 0, f"split_count must be positive, got {count}")
    _check_groups(args)
    groups = _dense_groups(args)
    if groups is not None:
        require(groups and len(groups[0]) == count,
                f"replica_groups must have split_count ({count}) columns, got {args.replica_groups}")
    results = []
    for i, v in enumerate(args.operands):
        dims = list(shape(v))
        split = _dim_of(args, v, f"operands[{i}]", "split_dimension")
        concat = _dim_of(args, v, f"operands[{i}]", "concat_dimension")
        require(dims[split] is None or dims[split] % count == 0,
                f"operands[{i}] dimension {split} (split_dimension) must be divisible by split_count {count}, "
                f"got {dims[split]}")
        if dims[split] is not None:
            dims[split] //= count
        if dims[concat] is not None:
            dims[concat] *= count
        results.append(tensor(dims, elem(v)))
    return results


export(OpSpec("all_to_all", (Operand("operands", variadic=True), Attr("split_dimension", A.Integer(), REQUIRED),
                             Attr("concat_dimension", A.Integer(), REQUIRED),
                             Attr("split_count", A.Integer(), REQUIRED),
                             Attr("replica_groups", ReplicaGroups(), REQUIRED), Attr("channel_handle", CHANNEL)),
              _all_to_all, results="variadic", family=FAMILY,
              doc="Splits each operand, scatters the parts across the group, and concatenates what arrives."),
       globals())


def _reduce_scatter(args):
    """The reduced operand split along scatter_dimension into one part per process (C1-C9)."""
    _check_groups(args)
    _check_global_ids(args)
    e = _accumulator(args)
    dims = list(shape(args.operand))
    d = _dim_of(args, args.operand, "operand", "scatter_dimension")
    n = _group_size(args)
    require(dims[d] != 0, f"operand must not be empty along scatter_dimension {d}")
    if n is not None and dims[d] is not None:
        require(dims[d] % n == 0, f"operand dimension {d} (scatter_dimension) must be divisible by the process "
                f"group size {n}, got {dims[d]}")
    dims[d] = None if dims[d] is None or n is None else dims[d] // n
    return tensor(dims, e)


export(OpSpec("reduce_scatter", (Operand("operand"), Attr("scatter_dimension", A.Integer(), REQUIRED),
                                 Attr("replica_groups", ReplicaGroups(), REQUIRED), Attr("channel_handle", CHANNEL),
                                 Attr("use_global_device_ids", A.Unit(), False),
                                 Region("computation", _reducer_block), Param("num_partitions", None)),
              _reduce_scatter, family=FAMILY, infer_after_regions=True,
              doc="Reduces the operand across each group and scatters the parts along scatter_dimension."),
       globals())


def _collective_broadcast(args):
    """Results are the data operands' types; ids are unique and non-negative (C1-C5)."""
    groups = _dense_groups(args)
    if groups is not None:
        require(all(isinstance(row, list) for row in groups), f"replica_groups must be 2-D, got {groups}")
        ids = [i for row in groups for i in row]
        require(all(i >= 0 for i in ids), f"replica_groups must hold ids >= 0, got {groups}")
        require(len(set(ids)) == len(ids), f"replica_groups must be unique, got {groups}")
    _check_dynamic_root(args, "collective_broadcast")
    data = args.operands[:-1] if args.has_dynamic_root else args.operands
    require(data, "collective_broadcast needs at least one operand")
    return [v.type for v in data]


export(OpSpec("collective_broadcast", (Operand("operands", variadic=True),
                                       Attr("replica_groups", ReplicaGroups(), REQUIRED),
                                       Attr("channel_handle", CHANNEL), Attr("has_dynamic_root", A.Unit(), False)),
              _collective_broadcast, results="variadic", family=FAMILY,
              doc="Sends each operand from a group's root process to every process of the group."), globals())


def _collective_permute(args):
    """The result has the operand's type; source_target_pairs are [N, 2] with unique sources and targets (C1-C5)."""
    _check_pairs(args.source_target_pairs)
    shape(args.operand)
    return args.operand.type


export(OpSpec("collective_permute", (Operand("operand"), Attr("source_target_pairs", PAIRS, REQUIRED),
                                     Attr("channel_handle", CHANNEL)),
              _collective_permute, family=FAMILY,
              doc="Sends the operand from each source process to its target (zeros where nothing arrives)."),
       globals())


def _collective_reduce(args):
    """Results keep the data operands' shapes with the computation's element type."""
    _check_groups(args, padding_allowed=True)
    _check_global_ids(args)
    _check_dynamic_root(args, "collective_reduce")
    e = _accumulator(args)
    return [tensor(shape(v), e) for v in _reduced(args)]


export(OpSpec("collective_reduce", (Operand("operands", variadic=True),
                                    Attr("replica_groups", ReplicaGroups(), REQUIRED),
                                    Attr("channel_handle", CHANNEL), Attr("use_global_device_ids", A.Unit(), False),
                                    Attr("has_dynamic_root", A.Unit(), False), Region("computation", _reducer_block)),
              _collective_reduce, results="variadic", family=FAMILY, infer_after_regions=True,
              doc="Reduces the operands of each group with the computation onto the group's root process."),
       globals())


def _cross_replica_sum(args):
    """The sum has the operand's type; replica_groups as for all_reduce."""
    _check_groups(args, padding_allowed=True)
    shape(args.operand)
    return args.operand.type


export(OpSpec("cross-replica-sum", (Operand("operand"), Attr("replica_groups", ReplicaGroups(), REQUIRED)),
              _cross_replica_sum, family=FAMILY,
              doc="Deprecated: all_reduce with addition over replica_groups (not in the specification)."), globals())


# Process ids and tokens -------------------------------------------------------------------------------------------

def _ui32_scalar(args):
    """A 0-d ui32 tensor."""
    return tensor((), ir.IntegerType.get_unsigned(32))


def _token(args):
    """A token."""
    return T.token_type()


export(OpSpec("partition_id", (), _ui32_scalar, family=FAMILY, doc="The partition id of the current process."),
       globals())
export(OpSpec("replica_id", (), _ui32_scalar, family=FAMILY, doc="The replica id of the current process."),
       globals())
export(OpSpec("create_token", (), _token, family=FAMILY,
              doc="Deprecated: a fresh token, like after_all with no inputs (not in the specification)."), globals())


def _check_token(value, name: str) -> None:
    """Fails unless `value` is a !stablehlo.token."""
    require(T.is_token(value.type), f"{name} must be a !stablehlo.token, got {value.type}", TypeError)


def _after_all(args):
    """Every input is a token; the result is a token."""
    for i, v in enumerate(args.inputs):
        _check_token(v, f"inputs[{i}]")
    return T.token_type()


export(OpSpec("after_all", (Operand("inputs", variadic=True),), _after_all, family=FAMILY,
              doc="A token that orders everything after the ops producing the input tokens."), globals())


# Send, receive, infeed, outfeed -----------------------------------------------------------------------------------

def _check_tensors(values, name: str) -> None:
    """Fails unless every value is a ranked tensor."""
    for i, v in enumerate(values):
        require(T.is_tensor(v.type), f"{name}[{i}] must be a tensor, got {v.type}", TypeError)


def _channel_type(args, host: int, what: str) -> None:
    """channel_type is DEVICE_TO_DEVICE (1) unless is_host_transfer, then `host` (C5)."""
    kind = args.channel_handle.type
    if args.is_host_transfer:
        require(kind == host, f"is_host_transfer = true needs channel_handle type {host} ({what}), got {kind}")
    else:
        require(kind == 1, f"is_host_transfer = false needs channel_handle type 1 (DEVICE_TO_DEVICE), got {kind}")


def _payload(args) -> list:
    """payload_types as statically shaped tensor types (C: results[:-1] are tensors)."""
    try:
        types = _as_types(args.payload_types)
    except (ir.MLIRError, TypeError, ValueError) as e:
        fail(f"payload_types: {e}", TypeError)
    for i, t in enumerate(types):
        require(T.is_tensor(t), f"payload_types[{i}] must be a tensor type, got {t}", TypeError)
        require(all(d is not None for d in T.shape_of(t)), f"payload_types[{i}] must be statically shaped, got {t}")
    return types


def _send(args):
    """Inputs are tensors, token a token; channel type matches is_host_transfer; pairs as in collective_permute."""
    _check_tensors(args.inputs, "inputs")
    _check_token(args.token, "token")
    _channel_type(args, 2, "DEVICE_TO_HOST")
    if args.source_target_pairs is not None:
        _check_pairs(args.source_target_pairs)
    return T.token_type()


export(OpSpec("send", (Operand("inputs", variadic=True), Operand("token"), Attr("channel_handle", CHANNEL, REQUIRED),
                       Attr("is_host_transfer", A.Bool(), False), Attr("source_target_pairs", PAIRS)),
              _send, family=FAMILY, doc="Sends the inputs on a channel (to other devices or the host); gives a token."),
       globals())


def _recv(args):
    """The payload tensors then a token; channel type matches is_host_transfer (C1-C5)."""
    _check_token(args.token, "token")
    _channel_type(args, 3, "HOST_TO_DEVICE")
    if args.source_target_pairs is not None:
        _check_pairs(args.source_target_pairs)
    return _payload(args) + [T.token_type()]


export(OpSpec("recv", (Operand("token"), Param("payload_types"), Attr("channel_handle", CHANNEL, REQUIRED),
                       Attr("is_host_transfer", A.Bool(), False), Attr("source_target_pairs", PAIRS)),
              _recv, results="variadic", family=FAMILY,
              doc="Receives payload_types on a channel; gives the payload and a token."), globals())


def _infeed(args):
    """The payload tensors then a token; a layout, if any, has one entry of ints per payload tensor (C1-C3)."""
    _check_token(args.token, "token")
    payload = _payload(args)
    if args.layout is not None:
        require(isinstance(args.layout, list) and len(args.layout) == len(payload),
                f"layout must have one entry per payload tensor ({len(payload)}), got {args.layout}")
        for i, entry in enumerate(args.layout):
            require(isinstance(entry, list) and all(isinstance(x, int) for x in entry),
                    f"layout[{i}] must be a list of ints, got {entry!r}")
    return payload + [T.token_type()]


export(OpSpec("infeed", (Operand("token"), Param("payload_types"), Attr("infeed_config", A.String(), ""),
                         Attr("layout", A.AnyAttr())),
              _infeed, results="variadic", family=FAMILY,
              doc="Reads payload_types from the infeed; gives the payload and a token."), globals())


def _outfeed(args):
    """Inputs are tensors, token a token; the result is a token."""
    _check_tensors(args.inputs, "inputs")
    _check_token(args.token, "token")
    return T.token_type()


export(OpSpec("outfeed", (Operand("inputs", variadic=True), Operand("token"), Attr("outfeed_config", A.String(), "")),
              _outfeed, family=FAMILY, doc="Writes the inputs to the outfeed; gives a token."), globals())


# Asynchronous collectives -----------------------------------------------------------------------------------------

def future_type(t: ir.Type) -> ir.Type:
    """`!stablehlo.future<t>`."""
    return ir.Type.parse(f"!stablehlo.future<{t}>", ir.context())


def future_contents(t: ir.Type) -> list[str]:
    """The spelled types inside a `!stablehlo.future<...>`, or [] for any other type."""
    text = str(t)
    prefix = "!stablehlo.future<"
    if not text.startswith(prefix):
        return []
    parts, depth, start, body = [], 0, 0, text[len(prefix):-1]
    for i, c in enumerate(body):
        depth += c in "<([{"
        depth -= c in ">)]}"
        if c == "," and depth == 0:
            parts.append(body[start:i].strip())
            start = i + 1
    return parts + [body[start:].strip()]


def _async_start(args):
    """A future of the one value the body returns (C1, C4)."""
    returned = args.region_results[0]
    require(len(returned) == 1, f"body must return exactly one value, got {len(returned)}")
    return future_type(returned[0])


export(OpSpec("async_start", (Operand("operands", variadic=True),
                              Region("body", lambda args: [v.type for v in args.operands])),
              _async_start, family=FAMILY, infer_after_regions=True,
              doc="Starts the collective or slice its body holds; gives a future of its result."), globals())


def _async_done(args):
    """The value type inside the operand's future (C1)."""
    inside = future_contents(args.operand.type)
    require(len(inside) == 1, f"operand must be a future of one value, got {args.operand.type}", TypeError)
    return ir.Type.parse(inside[0], ir.context())


export(OpSpec("async_done", (Operand("operand"),), _async_done, family=FAMILY,
              doc="Waits for an async_start and gives its value."), globals())
