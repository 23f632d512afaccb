"""Helpers of the oxla.runtime tests: compile StableHLO once, find out whether Vulkan works.

Imported by name (not a conftest.py, whose name another directory may share).
"""

from __future__ import annotations

import functools

import pytest

import oxla.runtime as ort

CPU_FLAGS = ("--iree-llvmcpu-target-cpu=host", "--iree-input-demote-f64-to-f32=false")


@functools.lru_cache(maxsize=None)
def compile_mlir(src: str, backend: str = "llvm-cpu", flags: tuple[str, ...] = ()) -> bytes:
    """A vmfb for `src`, compiled once per session for `backend` with extra `flags`."""
    from iree.compiler.tools import compile_str

    extra = list(CPU_FLAGS if backend == "llvm-cpu" else ()) + list(flags)
    return compile_str(src, target_backends=[backend], extra_args=extra)


def load_cpu(src: str, device: str = "local-task") -> ort.Module:
    """`src` compiled for llvm-cpu and loaded on a CPU device."""
    return ort.load(compile_mlir(src), device=device)


def vulkan_or_skip() -> None:
    """Skip the calling test, with the reason, unless a Vulkan device can be created here."""
    info = {d.name: d for d in ort.devices()}.get("vulkan")
    if info is None:
        pytest.skip("iree.runtime has no vulkan driver")
    if not info.available:
        pytest.skip(f"no Vulkan device here: {info.detail}")
