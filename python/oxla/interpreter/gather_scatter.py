"""gather and scatter with every dimension number, as numpy fancy indexing.

Both ops turn their index tensor into one start index per operand dimension
for each batch position (the index vector's entries, batching dims' own
coordinates, zeros elsewhere) and add the window offsets. gather clamps
each start so the slice fits; scatter skips every update element whose
target is out of bounds and applies the rest in order (see
`reductions.scatter_in_order`).
"""

from __future__ import annotations

import numpy as np

from oxla.interpreter import attrs
from oxla.interpreter.core import register, results
from oxla.interpreter.reductions import Combiner, scatter_in_order


def _starts(indices, index_vector_dim: int, rank: int, index_map, operand_batching, index_batching):
    """Per operand dim, the start index for each batch position (shape: the batch shape)."""
    idx = indices.astype(np.int64)
    if index_vector_dim == idx.ndim:
        idx = idx[..., None]
    idx = np.moveaxis(idx, index_vector_dim, -1)
    batch_shape = idx.shape[:-1]
    starts = [np.zeros(batch_shape, dtype=np.int64) for _ in range(rank)]
    for k, d in enumerate(index_map):
        starts[d] = idx[..., k]
    for d, index_dim in zip(operand_batching, index_batching):
        axis = index_dim if index_dim < index_vector_dim else index_dim - 1
        view = [1] * len(batch_shape)
        view[axis] = batch_shape[axis]
        starts[d] = np.broadcast_to(np.arange(batch_shape[axis]).reshape(view), batch_shape)
    return starts, batch_shape


def _full_index(starts, batch_shape, window_dims: list[int], window_sizes: list[int]):
    """Index arrays (batch shape + window shape) for every operand dim: start plus window offset."""
    nb, nw = len(batch_shape), len(window_dims)
    full = []
    for d, start in enumerate(starts):
        index = start.reshape(tuple(batch_shape) + (1,) * nw)
        if d in window_dims:
            j = window_dims.index(d)
            offset = np.arange(window_sizes[j]).reshape((1,) * (nb + j) + (-1,) + (1,) * (nw - j - 1))
            index = index + offset
        full.append(index)
    return full


def gather(operand, indices, numbers: dict, slice_sizes: list[int]):
    """The gather of the specification (starts clamped so that every slice is inside the operand)."""
    rank = operand.ndim
    collapsed = numbers.get("collapsed_slice_dims", [])
    operand_batching = numbers.get("operand_batching_dims", [])
    starts, batch_shape = _starts(indices, numbers.get("index_vector_dim", 0), rank, numbers.get("start_index_map", []),
                                  operand_batching, numbers.get("start_indices_batching_dims", []))
    for d in range(rank):
        if d not in operand_batching:
            starts[d] = np.clip(starts[d], 0, max(operand.shape[d] - slice_sizes[d], 0))
    window_dims = [d for d in range(rank) if d not in collapsed and d not in operand_batching]
    full = _full_index(starts, batch_shape, window_dims, [slice_sizes[d] for d in window_dims])
    gathered = operand[tuple(full)] if operand.size else np.zeros(
        tuple(batch_shape) + tuple(slice_sizes[d] for d in window_dims), operand.dtype)
    offset_dims = numbers.get("offset_dims", [])
    nb = len(batch_shape)
    batch_axes = iter(range(nb))
    perm = [nb + offset_dims.index(r) if r in offset_dims else next(batch_axes) for r in range(nb + len(window_dims))]
    return np.transpose(gathered, perm)


@register("stablehlo.gather", storage=True)
def _gather(op, c):
    numbers, sizes = attrs.struct(op, "dimension_numbers"), attrs.ints(op, "slice_sizes")
    return lambda operand, indices: gather(operand, indices, numbers, sizes)


def scatter_targets(shape, indices, updates_shape, numbers: dict) -> np.ndarray:
    """For each update element (row-major), the flat result position it updates, or -1 when out of bounds."""
    rank = len(shape)
    window_update_dims = numbers.get("update_window_dims", [])
    inserted = numbers.get("inserted_window_dims", [])
    operand_batching = numbers.get("input_batching_dims", [])
    starts, batch_shape = _starts(indices, numbers.get("index_vector_dim", 0), rank,
                                  numbers.get("scatter_dims_to_operand_dims", []), operand_batching,
                                  numbers.get("scatter_indices_batching_dims", []))
    window_dims = [d for d in range(rank) if d not in inserted and d not in operand_batching]
    full = _full_index(starts, batch_shape, window_dims, [updates_shape[d] for d in window_update_dims])
    full = [np.broadcast_to(f, tuple(batch_shape) + tuple(updates_shape[d] for d in window_update_dims)) for f in full]
    inside = np.ones(full[0].shape, dtype=bool)
    for index, size in zip(full, shape):
        inside &= (index >= 0) & (index < size)
    flat = np.where(inside, np.ravel_multi_index([np.where(inside, f, 0) for f in full], shape) if rank else 0, -1)
    # back from (scatter dims, window dims) to the updates' own dimension order
    scatter_update_dims = [d for d in range(len(updates_shape)) if d not in window_update_dims]
    return np.transpose(flat, np.argsort(scatter_update_dims + window_update_dims)).reshape(-1)


@register("stablehlo.scatter", stateful=True)
def _scatter(op, c):
    """Copies the inputs and applies the update computation at each in-bounds target, in order."""
    combiner = Combiner(op, c.region(op))
    numbers = attrs.struct(op, "scatter_dimension_numbers")
    count = len(op.results)

    def kernel(state, *operands):
        inputs, indices, updates = operands[:count], operands[count], operands[count + 1:]
        targets = scatter_targets(inputs[0].shape, indices, updates[0].shape, numbers)
        outs = [np.array(x).reshape(-1) for x in inputs]
        scatter_in_order(state, combiner, outs, targets, [u.reshape(-1) for u in updates])
        return results(op, [o.reshape(x.shape) for o, x in zip(outs, inputs)])

    return kernel
