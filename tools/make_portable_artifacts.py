"""Writes the StableHLO portable artifacts that test/python/test_vhlo.py reads.

Each program below is exported with `jax.export` and saved twice under
test/python/data/portable/: `NAME.mlirbc` is `mlir_module_serialized` (VHLO
bytecode, what oxla must convert) and `NAME.mlir` is `mlir_module()` (the
StableHLO text JAX itself gets back from that bytecode: the reference).

Usage: python tools/make_portable_artifacts.py [OUTPUT_DIR]
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Callable

import jax
import jax.numpy as jnp
from jax import export, lax

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "python", "data", "portable")

# The target of the FFI call in `misc`; export refuses unknown targets unless told.
CUSTOM_TARGET = "oxla_test_target"


@dataclass(frozen=True)
class Program:
    """One program to export: the function, its argument specs, jit and export options."""

    fn: Callable
    args: tuple
    jit: dict = field(default_factory=dict)
    export: dict = field(default_factory=dict)


def spec(shape, dtype=jnp.float32) -> jax.ShapeDtypeStruct:
    """An abstract argument of the given shape and dtype."""
    return jax.ShapeDtypeStruct(shape, dtype)


@jax.jit
def _relu(x):
    """A nested jit: it becomes a private func.func reached by func.call."""
    return jnp.maximum(x, 0.0)


def mlp(x, w1, b1, w2):
    """dot_general (plain, and batched at HIGHEST precision), relu through a call, softmax."""
    h = _relu(x @ w1 + b1)
    outer = jnp.einsum("bi,bj->bij", h, h, precision=lax.Precision.HIGHEST)
    return jax.nn.softmax(h @ w2, axis=-1), outer


def convnet(img, kernel):
    """convolution, reduce_window (max and padded sum pooling), tanh, transpose, reshape."""
    y = jnp.tanh(lax.conv_general_dilated(img, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))
    pooled = lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    summed = lax.reduce_window(y, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), ((0, 0), (1, 1), (1, 1), (0, 0)))
    return jnp.transpose(pooled, (0, 3, 1, 2)).reshape(1, -1), summed


def indexing(x, idx):
    """gather, scatter, and sort with two operands (argsort)."""
    picked = x[idx]
    return picked, x.at[idx].add(1.0), lax.sort((picked[:, 0], idx), num_keys=1)


def control(x, n):
    """while (fori_loop), cond and switch (both case), sine/cosine/exp in branches."""
    total = lax.fori_loop(0, n, lambda i, acc: acc * 0.5 + i.astype(acc.dtype), jnp.sum(x))
    branch = lax.cond(total > 0, lambda v: v * 2.0, lambda v: v - 1.0, total)
    return lax.switch(n, [jnp.sin, jnp.cos, jnp.exp], branch)


def dtypes(i, u, b, h, f, c):
    """i32, ui8, bool, bf16, f16 and complex64 ops: bitwise, shifts, compare, select, convert."""
    ints = lax.bitwise_xor(lax.shift_left(i, 2), lax.rem(i, 3))
    bits = lax.shift_right_logical(u, jnp.ones_like(u))
    mask = lax.bitwise_and(b, lax.gt(ints, jnp.zeros_like(ints)))
    halves = lax.convert_element_type(h * h, jnp.float32) + lax.convert_element_type(f, jnp.float32)
    comp = lax.abs(c * lax.conj(c)) + lax.real(c) * lax.imag(c)
    return lax.select(mask, ints, lax.neg(ints)), bits, halves, comp, lax.complex(halves, comp)


def arrays(x, start):
    """iota, concatenate, pad, slice, dynamic_slice, dynamic_update_slice, reverse; x is donated."""
    table = lax.broadcasted_iota(jnp.float32, (3, 4), 1)
    padded = lax.pad(jnp.concatenate([x, table], axis=0), 0.0, ((1, 0, 0), (0, 2, 1)))
    window = lax.dynamic_slice(padded, (start, start), (2, 4))
    placed = lax.dynamic_update_slice(x, window, (start, 0))
    return lax.slice(padded, (1, 0), (5, 9), (2, 3)), lax.rev(placed, (0,))


def misc(x, key):
    """custom_call (an FFI call with aliasing), composite, optimization_barrier, rng_bit_generator."""
    scaled = lax.composite(lambda v, *, factor: v * factor, name="oxla.scale")(x, factor=2.0)
    kept = lax.optimization_barrier(scaled)
    _, bits = lax.rng_bit_generator(key, (2, 3), dtype=jnp.uint32)
    result_shapes = (spec(x.shape, x.dtype), spec((), jnp.int32))
    call = jax.ffi.ffi_call(CUSTOM_TARGET, result_shapes, has_side_effect=True, input_output_aliases={0: 0})
    out, status = call(kept, alpha=1.5, mode=3)
    return out, status, bits


def polymorphic(x):
    """Symbolic shapes: dynamic_broadcast_in_dim, get_dimension_size, shape assertions."""
    return jnp.sum(jnp.exp(x) * x.shape[0], axis=0)


def programs() -> dict[str, Program]:
    """The exported programs, by artifact name."""
    batch = export.symbolic_shape("b")[0]
    mlp_args = (spec((2, 3)), spec((3, 8)), spec((8,)), spec((8, 4)))
    return {
        "mlp": Program(mlp, mlp_args),
        "convnet": Program(convnet, (spec((1, 4, 4, 2)), spec((3, 3, 2, 3)))),
        "indexing": Program(indexing, (spec((5, 3)), spec((4,), jnp.int32))),
        "control": Program(control, (spec((3,)), spec((), jnp.int32))),
        "dtypes": Program(dtypes, tuple(spec((4,), t) for t in (
            jnp.int32, jnp.uint8, jnp.bool_, jnp.bfloat16, jnp.float16, jnp.complex64))),
        "arrays": Program(arrays, (spec((2, 4)), spec((), jnp.int32)), jit={"donate_argnums": 0}),
        "misc": Program(misc, (spec((3, 3)), spec((4,), jnp.uint32)),
                        export={"disabled_checks": [export.DisabledSafetyCheck.custom_call(CUSTOM_TARGET)]}),
        "polymorphic": Program(polymorphic, (spec((batch, 3)),)),
        "multiplatform": Program(_relu, (spec((2, 3)),), export={"platforms": ("cpu", "cuda")}),
    }


def export_program(program: Program) -> export.Exported:
    """Exports one program with jax.export."""
    return export.export(jax.jit(program.fn, **program.jit), **program.export)(*program.args)


def write_artifact(out_dir: str, name: str, program: Program) -> None:
    """Writes NAME.mlirbc (the portable artifact) and NAME.mlir (JAX's reading of it)."""
    exported = export_program(program)
    with open(os.path.join(out_dir, f"{name}.mlirbc"), "wb") as f:
        f.write(exported.mlir_module_serialized)
    with open(os.path.join(out_dir, f"{name}.mlir"), "w") as f:
        f.write(exported.mlir_module())


def main(argv: list[str]) -> int:
    """Writes every artifact into the output directory."""
    out_dir = os.path.abspath(argv[1] if len(argv) > 1 else DEFAULT_OUT)
    os.makedirs(out_dir, exist_ok=True)
    for name, program in programs().items():
        write_artifact(out_dir, name, program)
        print(f"wrote {name}.mlirbc and {name}.mlir to {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
