"""`oxla.jit`: trace a Python function over abstract arguments, compile it, run it, cache by signature.

    @oxla.jit
    def f(x, y):
        return (x @ y).max(axis=-1)

    f(np.ones((4, 8), np.float32), np.ones((8, 3), np.float32))

The first call with a new combination of argument shapes and dtypes (and
static arguments) traces `f` on Tensors into a StableHLO program, compiles
it with `oxla.compile` for the target, and loads it; later calls with the
same combination reuse the compiled code.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from oxla.builder.program import Program, _host_array
from oxla.dialects.stablehlo import types as T


@dataclass
class _Compiled:
    """One cache entry: the traced program and the loaded function."""

    program: Program
    call: object


class Jitted:
    """A traced-and-compiled function; call it with arrays (see `oxla.jit`)."""

    def __init__(self, fn, *, target: str = "llvm-cpu", device: str | None = None, static_argnums=()):
        self.fn, self.target, self.device = fn, target, device
        self.static_argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
        self._cache: dict = {}
        functools.update_wrapper(self, fn)

    def __call__(self, *args):
        key, arrays, statics = self._key(args)
        entry = self._cache.get(key)
        if entry is None:
            entry = self._cache[key] = self._compile(arrays, statics)
        return entry.call(*arrays)

    def lower(self, *args) -> Program:
        """The traced program for these arguments (nothing compiled)."""
        _, arrays, statics = self._key(args)
        return self._trace(arrays, statics)

    @property
    def cache_size(self) -> int:
        """How many argument signatures have compiled code."""
        return len(self._cache)

    def clear_cache(self) -> None:
        """Forgets every compiled signature."""
        self._cache.clear()

    def _key(self, args):
        """(cache key, the traced arguments as arrays, {position: static value})."""
        statics = {i: args[i] for i in self.static_argnums if i < len(args)}
        arrays = [_host_array(a) for i, a in enumerate(args) if i not in statics]
        for i, a in enumerate(arrays):
            try:
                T.element_type(a.dtype)
            except TypeError:
                raise ValueError(f"{self.__name__}: argument {i} has dtype {a.dtype}, which oxla has no type for") from None
        try:
            hash(tuple(statics.values()))
        except TypeError:
            raise ValueError(f"{self.__name__}: static arguments must be hashable") from None
        signature = tuple((a.shape, a.dtype.str) for a in arrays)
        return (signature, tuple(sorted(statics.items()))), arrays, statics

    def _trace(self, arrays, statics) -> Program:
        """Builds the program `main` of the function applied to Tensors of the arrays' types."""
        program = Program()
        specs = [T.TensorSpec.of(a.shape, a.dtype) for a in arrays]
        n = len(arrays) + len(statics)

        def main(*tensors):
            it = iter(tensors)
            return self.fn(*[statics[i] if i in statics else next(it) for i in range(n)])

        program.function(main, name="main", args=specs)
        return program

    def _compile(self, arrays, statics) -> _Compiled:
        """Traces, compiles and loads one signature."""
        import oxla.runtime as rt

        program = self._trace(arrays, statics)
        artifact = program.compile(self.target)
        module = rt.load(artifact.vmfb, device=self.device or artifact.driver)
        main = program["main"]
        function = module["main"]

        def call(*xs):
            out = function(*xs)
            out = list(out) if isinstance(out, (tuple, list)) else [out]
            return out[0] if main.returns_one else tuple(out)

        return _Compiled(program, call)


def jit(fn=None, *, target: str = "llvm-cpu", device: str | None = None, static_argnums=()):
    """Decorator: trace `fn` into StableHLO per argument signature, compile for `target`, run on `device`."""
    if fn is None:
        return lambda f: Jitted(f, target=target, device=device, static_argnums=static_argnums)
    return Jitted(fn, target=target, device=device, static_argnums=static_argnums)
