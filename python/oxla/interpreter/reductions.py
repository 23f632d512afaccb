"""Ops with a computation region applied across elements: reduce, reduce_window,
select_and_scatter, sort and map.

A region that is one binary op on its two arguments (add, max, and...)
runs as the matching numpy ufunc; any other region is evaluated on whole
arrays when it is pointwise (a fold over the reduced elements, one region
run per step), else element by element.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from oxla.interpreter import attrs
from oxla.interpreter.core import Block, register, results, run_pointwise
from oxla.interpreter.data_movement import pad
from oxla.interpreter.elementwise import total_order_key

# Single-op region bodies that numpy can reduce directly, by element kind (bool is logical).
_UFUNCS = {
    "stablehlo.add": (np.add, np.logical_or), "stablehlo.multiply": (np.multiply, np.logical_and),
    "stablehlo.maximum": (np.maximum, np.logical_or), "stablehlo.minimum": (np.minimum, np.logical_and),
    "stablehlo.and": (np.bitwise_and, np.logical_and), "stablehlo.or": (np.bitwise_or, np.logical_or),
    "stablehlo.xor": (np.bitwise_xor, np.logical_xor),
}


def body_op(op, index: int = 0):
    """The only op of a region's body and its operands as block-argument positions, or None."""
    block = op.regions[index].blocks[0]
    ops = [o.operation for o in block.operations]
    if len(ops) != 2 or len(ops[1].operands) != 1 or ops[1].operands[0] != ops[0].results[0]:
        return None
    args = list(block.arguments)
    positions = [args.index(v) if v in args else None for v in ops[0].operands]
    return (ops[0], positions) if None not in positions else None


def region_ufunc(op, index: int = 0):
    """(ufunc for numbers, ufunc for booleans) when the region is one commutative binary op of its two arguments."""
    found = body_op(op, index)
    if found is None or len(found[1]) != 2 or sorted(found[1]) != [0, 1]:
        return None
    return _UFUNCS.get(found[0].name)


class Combiner:
    """Combines values with a reduction region: numpy's ufunc when there is one, else the region."""

    def __init__(self, op, block: Block, index: int = 0):
        self.block = block
        self.ufuncs = region_ufunc(op, index)
        self.count = len(block.args) // 2

    def ufunc_for(self, arrays) -> np.ufunc | None:
        """The ufunc to use for these arrays, or None (complex max/min need the region's lexicographic order)."""
        if self.ufuncs is None or self.count != 1:
            return None
        dtype = arrays[0].dtype
        if dtype.kind == "c" and self.ufuncs[0] in (np.maximum, np.minimum):
            return None
        return self.ufuncs[1] if dtype == np.bool_ else self.ufuncs[0]

    def combine(self, state, accumulators: list, values: list) -> list:
        """region(accumulators..., values...) elementwise."""
        ufunc = self.ufunc_for(accumulators)
        if ufunc is not None:
            return [ufunc(accumulators[0], values[0])]
        return run_pointwise(state, self.block, list(accumulators) + list(values))

    def reduce(self, state, arrays: list, inits: list, axes: tuple[int, ...]) -> list:
        """Reduces `arrays` over `axes`, starting from the 0-d `inits` (so all -0.0 sums stay -0.0)."""
        ufunc = self.ufunc_for(arrays)
        if ufunc is None:
            return self.fold(state, arrays, inits, axes)
        x, init = arrays[0], inits[0]
        if ufunc in (np.add, np.multiply) and (x.dtype.kind == "V" or x.dtype == np.float16):
            wide = ufunc.reduce(x.astype(np.float32), axis=axes, initial=init.astype(np.float32)[()])
            return [wide.astype(x.dtype)]
        reduced = ufunc.reduce(x, axis=axes, initial=init[()])
        if ufunc in (np.maximum, np.minimum):
            reduced = self._zero_signs(reduced, x, init, axes, ufunc is np.maximum)
        return [np.asarray(reduced, dtype=x.dtype)]

    @staticmethod
    def _zero_signs(reduced, x, init, axes, is_max: bool):
        """A zero max (min) is +0.0 (-0.0) when any reduced element or the init is: numpy goes by order."""
        if x.dtype.kind not in "fV" or not np.any(reduced == 0):
            return reduced
        wanted = (lambda v: (v == 0) & ~np.signbit(v)) if is_max else (lambda v: (v == 0) & np.signbit(v))
        hit = np.any(wanted(x), axis=axes) | wanted(init)
        zero = np.zeros((), x.dtype)
        positive, negative = zero, np.negative(zero)
        other = negative if is_max else positive
        return np.where(reduced == 0, np.where(hit, positive if is_max else negative, other), reduced)

    def fold(self, state, arrays: list, inits: list, axes: tuple[int, ...]) -> list:
        """The general reduction: the region applied to each reduced element in turn, all positions at once."""
        rest = [d for d in range(arrays[0].ndim) if d not in axes]
        kept = tuple(arrays[0].shape[d] for d in rest)
        flat = [np.transpose(a, rest + list(axes)).reshape(kept + (-1,)) for a in arrays]
        accumulators = [np.broadcast_to(i, kept) for i in inits]
        for k in range(flat[0].shape[-1]):
            accumulators = self.combine(state, accumulators, [f[..., k] for f in flat])
        return accumulators


def _kept_shape(shape, axes):
    return tuple(n for d, n in enumerate(shape) if d not in axes)


@register("stablehlo.reduce", stateful=True)
def _reduce(op, c):
    """Reduces each input over `dimensions` with the body, from the init values."""
    combiner = Combiner(op, c.region(op))
    axes = tuple(attrs.ints(op, "dimensions"))
    count = len(op.operands) // 2

    def kernel(state, *operands):
        return results(op, combiner.reduce(state, list(operands[:count]), list(operands[count:]), axes))

    return kernel


@register("stablehlo.map", stateful=True)
def _map(op, c):
    """The computation applied to the inputs element by element."""
    block = c.region(op)
    return lambda state, *inputs: results(op, run_pointwise(state, block, list(inputs)))


# -- windows -------------------------------------------------------------------------

def window_geometry(shape, window, strides, padding, base_dilations=None, window_dilations=None):
    """Output shape and, per window position, the slices of the padded input it reads."""
    rank = len(shape)
    base_dilations = base_dilations or [1] * rank
    window_dilations = window_dilations or [1] * rank
    padded = [lo + ((n - 1) * b + 1 if n else 0) + hi for n, b, (lo, hi) in zip(shape, base_dilations, padding)]
    extent = [(w - 1) * d + 1 for w, d in zip(window, window_dilations)]
    out = [max((p - e) // s + 1, 0) if p >= e else 0 for p, e, s in zip(padded, extent, strides)]
    slices = []
    for offset in itertools.product(*[range(w) for w in window]):
        starts = [o * d for o, d in zip(offset, window_dilations)]
        slices.append(tuple(slice(st, st + (n - 1) * s + 1 if n else st, s) for st, n, s in zip(starts, out, strides)))
    return out, slices


@register("stablehlo.reduce_window", stateful=True)
def _reduce_window(op, c):
    """Reduces each window of the (padded, dilated) inputs with the body, from the init values."""
    combiner = Combiner(op, c.region(op))
    count = len(op.operands) // 2
    window = attrs.ints(op, "window_dimensions")
    rank = len(window)
    strides = attrs.ints(op, "window_strides", [1] * rank)
    base = attrs.ints(op, "base_dilations", [1] * rank)
    dilations = attrs.ints(op, "window_dilations", [1] * rank)
    padding = attrs.padding(op, rank)

    def kernel(state, *operands):
        inputs, inits = operands[:count], operands[count:]
        out, slices = window_geometry(inputs[0].shape, window, strides, padding, base, dilations)
        padded = [pad(x, init[()], [lo for lo, _ in padding], [hi for _, hi in padding], [b - 1 for b in base])
                  for x, init in zip(inputs, inits)]
        accumulators = [np.broadcast_to(init, out) for init in inits]
        for index in slices:
            accumulators = combiner.combine(state, accumulators, [p[index] for p in padded])
        return results(op, accumulators)

    return kernel


def scatter_in_order(state, combiner: Combiner, targets_of: list[np.ndarray], flat_targets: np.ndarray,
                     updates: list[np.ndarray]) -> None:
    """targets[t] = region(targets[t], update) for each update in order; -1 targets are skipped.

    Updates to distinct positions run together; repeated positions run in
    rounds so that each position sees its updates in their order.
    """
    keep = flat_targets >= 0
    positions, values = flat_targets[keep], [u[keep] for u in updates]
    if positions.size == 0:
        return
    order = np.argsort(positions, kind="stable")
    sorted_positions = positions[order]
    first = np.r_[True, sorted_positions[1:] != sorted_positions[:-1]]
    group_start = np.maximum.accumulate(np.where(first, np.arange(order.size), 0))
    occurrence = np.empty(order.size, dtype=np.int64)
    occurrence[order] = np.arange(order.size) - group_start
    for round_ in range(int(occurrence.max()) + 1):
        chosen = occurrence == round_
        where = positions[chosen]
        current = [t[where] for t in targets_of]
        combined = combiner.combine(state, current, [v[chosen] for v in values])
        for t, value in zip(targets_of, combined):
            t[where] = value


@register("stablehlo.select_and_scatter", stateful=True)
def _select_and_scatter(op, c):
    """Scatters `source` into the elements that `select` picks in each window of `operand`."""
    select = c.region(op, 0)
    scatter = Combiner(op, c.region(op, 1), 1)
    window = attrs.ints(op, "window_dimensions")
    rank = len(window)
    strides = attrs.ints(op, "window_strides", [1] * rank)
    padding = attrs.padding(op, rank)

    def kernel(state, operand, source, init):
        out, slices = window_geometry(operand.shape, window, strides, padding)
        lows, highs = [lo for lo, _ in padding], [hi for _, hi in padding]
        values = pad(operand, operand.reshape(-1)[0] if operand.size else 0, lows, highs, [0] * rank)
        index = pad(np.arange(operand.size).reshape(operand.shape), -1, lows, highs, [0] * rank)
        chosen_value = chosen_index = None
        for window_slice in slices:
            v, i = values[window_slice], index[window_slice]
            if chosen_index is None:
                chosen_value, chosen_index = v, i
                continue
            keep = run_pointwise(state, select, [chosen_value, v])[0]
            take = (i >= 0) & ((chosen_index < 0) | ~keep.astype(bool))
            chosen_value, chosen_index = np.where(take, v, chosen_value), np.where(take, i, chosen_index)
        result = np.full(operand.size, init[()], dtype=init.dtype)
        targets = chosen_index.reshape(-1) if chosen_index is not None else np.zeros(0, np.int64)
        scatter_in_order(state, scatter, [result], targets, [source.reshape(-1)])
        return result.reshape(operand.shape)

    return kernel


# -- sort ---------------------------------------------------------------------------

_FLIP = {"LT": "GT", "GT": "LT"}
_ALL_PAIRS_LIMIT = 1 << 22  # elements of the all-pairs comparison before sorting slice by slice instead


def _key_comparator(op):
    """(operand index, descending, compare type) when the comparator is one strict compare of one operand pair."""
    found = body_op(op)
    if found is None or found[0].name != "stablehlo.compare":
        return None
    compare, (a, b) = found
    direction = attrs.enum(compare, "comparison_direction")
    if direction not in _FLIP or a // 2 != b // 2 or a == b:
        return None
    if a > b:
        direction = _FLIP[direction]
    return a // 2, direction == "GT", attrs.enum(compare, "compare_type")


def sort_key(x: np.ndarray, compare_type: str | None) -> np.ndarray | None:
    """Values whose ascending numpy order is the comparison's order, or None where numpy's would differ (NaN)."""
    if x.dtype == np.bool_:
        return x.astype(np.uint8)
    if x.dtype.kind in "fV":
        if compare_type == "TOTALORDER":
            return total_order_key(x)
        x64 = x.astype(np.float64)
        return None if np.isnan(x64).any() else x64
    if x.dtype.kind == "c":
        return None
    if compare_type == "UNSIGNED" and x.dtype.kind == "i":
        return x.view(x.dtype.str.replace("i", "u"))
    return x


def descending(key: np.ndarray) -> np.ndarray:
    """A key whose ascending order is the descending order of `key`."""
    if key.dtype.kind == "f":
        return -key
    as_unsigned = key.astype(np.int64).view(np.uint64) ^ np.uint64(1 << 63) if key.dtype.kind == "i" else key.astype(
        np.uint64)
    return ~as_unsigned


@register("stablehlo.sort", stateful=True)
def _sort(op, c):
    """Sorts the inputs together along `dimension` by the comparator (stably)."""
    comparator = c.region(op)
    dimension = attrs.integer(op, "dimension", 0)
    keyed = _key_comparator(op)

    def kernel(state, *inputs):
        axis = dimension % inputs[0].ndim if inputs[0].ndim else 0
        moved = [np.moveaxis(x, axis, -1) for x in inputs]
        order = _order_by_key(moved, keyed) if keyed else None
        if order is None:
            order = _order_by_comparator(state, comparator, moved)
        return results(op, [np.moveaxis(np.take_along_axis(m, order, axis=-1), -1, axis) for m in moved])

    return kernel


def _order_by_key(moved, keyed):
    """The stable sorting permutation from numpy's argsort, or None when keys cannot express the order."""
    index, reverse, compare_type = keyed
    key = sort_key(moved[index], compare_type)
    if key is None:
        return None
    return np.argsort(descending(key) if reverse else key, axis=-1, kind="stable")


def _order_by_comparator(state, comparator: Block, moved):
    """The stable sorting permutation the comparator defines: all pairs compared at once, or slice by slice."""
    n = moved[0].shape[-1]
    if moved[0].size * max(n, 1) <= _ALL_PAIRS_LIMIT:
        pairs = []
        for x in moved:
            pairs += [x[..., :, None], x[..., None, :]]
        less = run_pointwise(state, comparator, pairs)[0].astype(bool)  # less[..., i, j]: i before j
        before = np.swapaxes(less, -1, -2)  # before[..., i, j]: j before i
        ties = ~less & ~before
        earlier = np.tril(np.ones((n, n), dtype=bool), -1)
        rank = before.sum(-1) + (ties & earlier).sum(-1)
        order = np.empty_like(rank)
        np.put_along_axis(order, rank, np.broadcast_to(np.arange(n), rank.shape), axis=-1)
        return order
    return _order_slice_by_slice(state, comparator, moved)


def _order_slice_by_slice(state, comparator: Block, moved):
    """Python's stable sort with the comparator called on scalars, for inputs too big for all pairs."""
    batch = moved[0].shape[:-1]
    order = np.empty(moved[0].shape, dtype=np.int64)
    for index in np.ndindex(*batch):
        lines = [x[index] for x in moved]

        def compare(i, j):
            args = [v for line in lines for v in (np.asarray(line[i]), np.asarray(line[j]))]
            if comparator.run(state, args)[0]:
                return -1
            return 1 if comparator.run(state, [v for line in lines for v in (np.asarray(line[j]), np.asarray(line[i]))])[0] else 0

        order[index] = sorted(range(lines[0].shape[0]), key=functools.cmp_to_key(compare))
    return order
