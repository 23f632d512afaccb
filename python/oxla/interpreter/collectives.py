"""The process grid: collectives, replica/partition ids, send/recv, infeed/outfeed, tokens.

Each process of a parallel evaluation runs in its own thread with its own
`State`; the compiled module is shared and never written. A collective op
is a rendezvous: every member of the process group deposits its operands
under a key (the op's name and channel, and how many times this process
has reached that key), waits for the others, and computes its result from
all of them. A failure in one process aborts the others instead of leaving
them waiting.
"""

from __future__ import annotations

import collections
import threading

import numpy as np

from oxla.interpreter import attrs
from oxla.interpreter.core import ProcessAborted, State, UnsupportedOp, register, results, run_pointwise
from oxla.interpreter.types import TOKEN

WAIT_SECONDS = 60.0  # how long a process waits for its group before giving up


class Grid:
    """What the processes of one parallel evaluation share: rendezvous slots, channels, feeds."""

    def __init__(self, replicas: int, partitions: int, infeed=()):
        self.replicas, self.partitions = replicas, partitions
        self.lock = threading.Condition()
        self.slots: dict = {}
        self.channels: dict[int, collections.deque] = collections.defaultdict(collections.deque)
        self.infeed = collections.deque(infeed)
        self.aborted = False

    def abort(self) -> None:
        """Wakes every waiting process so that it stops."""
        with self.lock:
            self.aborted = True
            self.lock.notify_all()

    def wait_for(self, ready) -> None:
        """Blocks (holding the lock) until `ready()`; raises when the evaluation was aborted or hangs."""
        while not ready():
            if self.aborted:
                raise ProcessAborted("another process of the evaluation failed")
            if not self.lock.wait(WAIT_SECONDS) and not ready():
                raise RuntimeError(f"a process waited {WAIT_SECONDS:g} s for its peers; the program deadlocks")


class Process:
    """One process's place in the grid and its count of rendezvous per key."""

    def __init__(self, grid: Grid, replica: int, partition: int):
        self.grid, self.replica, self.partition = grid, replica, partition
        self.visits: collections.Counter = collections.Counter()

    @property
    def id(self) -> tuple[int, int]:
        return self.replica, self.partition

    def exchange(self, key, group: list[tuple[int, int]], value) -> dict:
        """Deposits `value` for `group` under `key`; every member's value once all have arrived."""
        grid = self.grid
        with grid.lock:
            visit = self.visits[(key, tuple(group))]
            self.visits[(key, tuple(group))] += 1
            slot = grid.slots.setdefault((key, tuple(group), visit), {"values": {}, "read": 0})
            slot["values"][self.id] = value
            grid.lock.notify_all()
            grid.wait_for(lambda: len(slot["values"]) == len(group))
            slot["read"] += 1
            if slot["read"] == len(group):
                del grid.slots[(key, tuple(group), visit)]
            return slot["values"]


def process_of(state: State) -> Process:
    """The state's process; a lone evaluation is process (0, 0) of a 1x1 grid."""
    if state.process is None:
        state.process = Process(Grid(1, 1), 0, 0)
    return state.process


def run_processes(interpreter, programs: list[list], args: list[list], infeed=()) -> list[list]:
    """Runs programs[replica][partition] in one thread each on its arguments; each one's results in order."""
    replicas, partitions = len(programs), len(programs[0])
    grid = Grid(replicas, partitions, infeed)
    outs: list = [None] * (replicas * partitions)
    errors: list = [None] * (replicas * partitions)

    def run(index: int, function, arguments) -> None:
        state = State(interpreter, interpreter.step_limit, Process(grid, index // partitions, index % partitions))
        try:
            with np.errstate(all="ignore"):
                outs[index] = function.call(state, arguments)
        except BaseException as exc:  # handed to the caller below
            errors[index] = exc
            grid.abort()

    threads = [threading.Thread(target=run, args=(i, programs[i // partitions][i % partitions], args[i]), daemon=True)
               for i in range(replicas * partitions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    first = next((e for e in errors if e is not None and not isinstance(e, ProcessAborted)), None) or next(
        (e for e in errors if e is not None), None)
    if first is not None:
        raise first
    return outs


# -- process groups ----------------------------------------------------------------------

def _replica_groups(op, name: str = "replica_groups") -> list[list[int]]:
    """The groups of an attribute such as replica_groups (-1 entries pad short groups)."""
    values = attrs.dense(op, name)
    if values is None:
        return []
    values = np.asarray(values).reshape(len(values), -1) if np.ndim(values) else np.zeros((0, 0), np.int64)
    return [[int(v) for v in row if v >= 0] for row in values]


def _channel(op) -> int:
    """The channel id (0 when absent)."""
    if "channel_handle" in op.attributes:
        return attrs.struct(op, "channel_handle").get("handle", 0)
    return attrs.integer(op, "channel_id", 0)


def process_groups(process: Process, kind: str, groups: list[list[int]]) -> list[list[tuple[int, int]]]:
    """The spec's process group strategies: cross_replica, cross_partition, cross_replica_and_partition,
    flattened_ids."""
    grid = process.grid
    if kind == "cross_replica":
        return [[(r, p) for r in g] for g in groups or [list(range(grid.replicas))] for p in range(grid.partitions)]
    if kind == "cross_partition":
        return [[(r, p) for p in g] for g in groups or [list(range(grid.partitions))] for r in range(grid.replicas)]
    if kind == "cross_replica_and_partition":
        return [[(r, p) for p in range(grid.partitions) for r in g] for g in groups or [list(range(grid.replicas))]]
    return [[(i // grid.partitions, i % grid.partitions) for i in g] for g in groups]


def _my_group(process: Process, groups) -> list[tuple[int, int]] | None:
    return next((g for g in groups if process.id in g), None)


def _strategy(op) -> str:
    """The grouping of all_gather, all_reduce and reduce_scatter."""
    channel, global_ids = _channel(op), attrs.flag(op, "use_global_device_ids")
    if channel <= 0:
        return "cross_replica"
    return "flattened_ids" if global_ids else "cross_replica_and_partition"


def _group_of(state, op, strategy: str | None = None):
    process = process_of(state)
    groups = process_groups(process, strategy or _strategy(op), _replica_groups(op))
    group = _my_group(process, groups)
    if group is None:
        raise ValueError(f"process {process.id} is in no group of {op.name}")
    return process, group


def _key(op) -> tuple:
    return op.name, _channel(op)


# -- collective ops ------------------------------------------------------------------------

@register("stablehlo.all_gather", stateful=True, storage=True)
def _all_gather(op, c):
    """Concatenates the group's operands along all_gather_dim, in group order."""
    dim, key = attrs.integer(op, "all_gather_dim"), _key(op)

    def kernel(state, *operands):
        process, group = _group_of(state, op)
        values = process.exchange(key, group, operands)
        return results(op, [np.concatenate([values[p][i] for p in group], axis=dim) for i in range(len(operands))])

    return kernel


def _fold(state, block, arrays_per_member: list[list[np.ndarray]]) -> list[np.ndarray]:
    """The region applied across the members' values in group order (a two-argument region to each operand)."""
    count = len(arrays_per_member[0])
    if count > 1 and len(block.args) == 2:
        return [_fold(state, block, [[values[i]] for values in arrays_per_member])[0] for i in range(count)]
    accumulators = list(arrays_per_member[0])
    for values in arrays_per_member[1:]:
        accumulators = run_pointwise(state, block, accumulators + list(values))
    return accumulators


@register("stablehlo.all_reduce", stateful=True)
def _all_reduce(op, c):
    """Reduces the group's operands with the computation."""
    block, key = c.region(op), _key(op)

    def kernel(state, *operands):
        process, group = _group_of(state, op)
        values = process.exchange(key, group, operands)
        return results(op, _fold(state, block, [values[p] for p in group]))

    return kernel


@register("stablehlo.reduce_scatter", stateful=True)
def _reduce_scatter(op, c):
    """all_reduce, then member i keeps part i of the result along scatter_dimension."""
    block, key, dim = c.region(op), _key(op), attrs.integer(op, "scatter_dimension")

    def kernel(state, operand):
        process, group = _group_of(state, op)
        values = process.exchange(key, group, (operand,))
        reduced = _fold(state, block, [values[p] for p in group])[0]
        return np.split(reduced, len(group), axis=dim)[group.index(process.id)]

    return kernel


@register("stablehlo.all_to_all", stateful=True, storage=True)
def _all_to_all(op, c):
    """Member i receives part i of everyone's operands and concatenates them in group order."""
    split_dim, concat_dim = attrs.integer(op, "split_dimension"), attrs.integer(op, "concat_dimension")
    count, key = attrs.integer(op, "split_count"), _key(op)

    def kernel(state, *operands):
        strategy = "cross_replica" if _channel(op) <= 0 else "cross_partition"
        process, group = _group_of(state, op, strategy)
        values = process.exchange(key, group, operands)
        me = group.index(process.id)
        return results(op, [np.concatenate([np.split(values[p][i], count, axis=split_dim)[me] for p in group],
                                           axis=concat_dim) for i in range(len(operands))])

    return kernel


def _everyone(process: Process, cross_partition: bool) -> list[tuple[int, int]]:
    """All processes of my partition (cross-replica) or of my replica (cross-partition)."""
    grid = process.grid
    if cross_partition:
        return [(process.replica, p) for p in range(grid.partitions)]
    return [(r, process.partition) for r in range(grid.replicas)]


@register("stablehlo.collective_permute", stateful=True, storage=True)
def _collective_permute(op, c):
    """Each target receives its source's operand; processes no pair targets get zeros."""
    pairs = [(int(a), int(b)) for a, b in np.asarray(attrs.dense(op, "source_target_pairs")).reshape(-1, 2)]
    key = _key(op)

    def kernel(state, operand):
        process = process_of(state)
        cross_partition = _channel(op) > 0
        values = process.exchange(key, _everyone(process, cross_partition), operand)
        me = process.partition if cross_partition else process.replica
        source = next((s for s, t in pairs if t == me), None)
        if source is None:
            return np.zeros_like(operand)
        return values[(process.replica, source) if cross_partition else (source, process.partition)]

    return kernel


@register("stablehlo.collective_broadcast", stateful=True, storage=True)
def _collective_broadcast(op, c):
    """Every member gets the root member's operands (the first, or per operand the dynamic root's);
    processes in no group get zeros."""
    key, dynamic_root = _key(op), attrs.flag(op, "has_dynamic_root")

    def kernel(state, *operands):
        data, roots = (operands[:-1], np.asarray(operands[-1]).reshape(-1)) if dynamic_root else (operands, None)
        process = process_of(state)
        cross_partition = _channel(op) > 0
        groups = process_groups(process, "cross_partition" if cross_partition else "cross_replica",
                                _replica_groups(op))
        values = process.exchange(key, _everyone(process, cross_partition), data)
        group = _my_group(process, groups)
        if group is None:
            return results(op, [np.zeros_like(x) for x in data])
        return results(op, [values[group[int(roots[i]) if dynamic_root else 0]][i] for i in range(len(data))])

    return kernel


@register("stablehlo.collective_reduce", stateful=True)
def _collective_reduce(op, c):
    """The group's reduction, kept by the group's first member; the others get zeros."""
    block, key = c.region(op), _key(op)

    def kernel(state, *operands):
        process = process_of(state)
        cross_partition = _channel(op) > 0
        groups = process_groups(process, "cross_partition" if cross_partition else "cross_replica",
                                _replica_groups(op))
        values = process.exchange(key, _everyone(process, cross_partition), operands)
        group = _my_group(process, groups)
        if group is None or group[0] != process.id:
            return results(op, [np.zeros_like(x) for x in operands])
        return results(op, _fold(state, block, [values[p] for p in group]))

    return kernel


@register("stablehlo.replica_id", stateful=True)
def _replica_id(op, c):
    return lambda state: np.array(process_of(state).replica, dtype=np.uint32)


@register("stablehlo.partition_id", stateful=True)
def _partition_id(op, c):
    return lambda state: np.array(process_of(state).partition, dtype=np.uint32)


# -- tokens, channels and feeds -------------------------------------------------------------

register("stablehlo.after_all", "stablehlo.create_token", storage=True)(lambda op, c: lambda *tokens: TOKEN)


@register("stablehlo.send", stateful=True, storage=True)
def _send(op, c):
    """Puts the operands on the channel; returns a token."""
    channel = _channel(op)

    def kernel(state, *operands):
        grid = process_of(state).grid
        with grid.lock:
            grid.channels[channel].append(tuple(operands[:-1]))
            grid.lock.notify_all()
        return TOKEN

    return kernel


@register("stablehlo.recv", stateful=True, storage=True)
def _recv(op, c):
    """Takes the next values sent on the channel (waiting for them); returns them and a token."""
    channel = _channel(op)

    def kernel(state, token):
        grid = process_of(state).grid
        with grid.lock:
            grid.wait_for(lambda: bool(grid.channels[channel]))
            values = grid.channels[channel].popleft()
        return results(op, list(values) + [TOKEN])

    return kernel


@register("stablehlo.infeed", stateful=True, storage=True)
def _infeed(op, c):
    """The next values of the infeed (see interpreter.run_parallel's `infeed`)."""

    def kernel(state, token):
        grid = process_of(state).grid
        with grid.lock:
            if not grid.infeed:
                raise ValueError("the infeed is empty")
            values = grid.infeed.popleft()
        return results(op, list(values) + [TOKEN])

    return kernel


@register("stablehlo.outfeed", stateful=True, storage=True)
def _outfeed(op, c):
    """Appends the operands to the interpreter's outfeed."""

    def kernel(state, *operands):
        with process_of(state).grid.lock:
            state.interpreter.outfeed.append(tuple(operands[:-1]))
        return TOKEN

    return kernel


@register("interpreter.run_parallel", stateful=True, storage=True)
def _run_parallel(op, c):
    """The StableHLO interpreter's test op: runs programs[replica][partition] as a process grid."""
    programs = [[c.function(_symbol_name(f)) for f in row] for row in op.attributes["programs"]]
    feeds = [c.function(_symbol_name(f)) for f in op.attributes["infeed"]] if "infeed" in op.attributes else []
    if len({len(row) for row in programs}) != 1:
        raise UnsupportedOp("interpreter.run_parallel needs the same number of partitions in every replica")

    def kernel(state, *operands):
        args, at = [], 0
        for row in programs:
            for function in row:
                args.append(list(operands[at:at + len(function.arg_types)]))
                at += len(function.arg_types)
        infeed = [tuple(feed.call(State(state.interpreter, state.limit), [])) for feed in feeds]
        outs = run_processes(state.interpreter, programs, args, infeed)
        return results(op, [value for out in outs for value in out])

    return kernel


def _symbol_name(attr) -> str:
    return str(attr).lstrip("@").strip('"')

