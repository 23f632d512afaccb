"""Programs built from Python functions: typed signatures, Tensor bodies, calls between functions.

    from oxla.builder import Program, Tensor

    prog = Program()

    @prog.function
    def dense(x: Tensor[64, 784, "f32"], w: Tensor[784, 10, "f32"]):
        return (x @ w).max(axis=1)

    print(prog)                          # the StableHLO module
    dense(np_x, np_w)                    # compiled for the host CPU and run

A function's body runs once, when it is defined, on Tensors standing for
its arguments; every operation on them builds StableHLO at the caller's
line. Calling a defined function from another body emits `func.call`.
"""

from __future__ import annotations

import inspect

import numpy as np

from oxla import ir
from oxla.builder.tensor import Tensor
from oxla.builder import functions as F
from oxla.dialects.stablehlo import _core
from oxla.dialects.stablehlo import types as T

_BUILDING: list["Program"] = []


class Program:
    """A StableHLO module being built from Python functions (`@program.function`)."""

    def __init__(self):
        with ir.context():
            self.module = ir.Module.create(ir.Location.unknown())
        self.functions: dict[str, Function] = {}
        self._compiled = None

    def function(self, fn=None, *, name: str | None = None, args=None, private: bool = False):
        """Decorator: builds `fn` as a function of this program (types from annotations or `args`)."""
        def define(f):
            return self._define(f, name or f.__name__, args, private)
        return define(fn) if fn is not None else define

    def __str__(self) -> str:
        return str(self.module)

    def __getitem__(self, name: str) -> "Function":
        return self.functions[name]

    def compile(self, target: str = "llvm-cpu", **options):
        """The program compiled by `oxla.compile` (an Artifact)."""
        from oxla.pipelines import compile as compile_module
        return compile_module(self.module, target, **options)

    def _define(self, fn, name: str, arg_specs, private: bool) -> "Function":
        """Builds one function: signature, body on Tensors, return, checks."""
        if name in self.functions:
            raise ValueError(f"the program already has a function named {name!r}")
        specs = _signature(fn, arg_specs)
        code = fn.__code__
        with ir.context():
            loc = ir.Location.file(code.co_filename, code.co_firstlineno, 0)
            types = [s.mlir_type() for s in specs]
            with ir.InsertionPoint(self.module.body):
                op = ir.Operation.create("func.func", regions=1, loc=loc, attributes={
                    "sym_name": ir.StringAttr.get(name),
                    "function_type": ir.TypeAttr.get(ir.FunctionType.get(types, [])),
                    **({"sym_visibility": ir.StringAttr.get("private")} if private else {})})
            block = op.regions[0].blocks.append(*types, arg_locs=[loc] * len(types))
            try:
                results, single = self._run_body(fn, block)
                with ir.InsertionPoint(block):
                    ir.Operation.create("func.return", operands=[r.value for r in results], loc=loc)
                result_types = [r.type for r in results]
                op.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(types, result_types))
                _check_return_annotation(fn, name, results)
                op.verify()
            except BaseException:
                op.erase()
                raise
        function = Function(self, name, specs, [T.TensorSpec(T.shape_of(t), str(T.element_of(t))) for t in result_types],
                            op, single=single)
        self.functions[name] = function
        self._compiled = None
        return function

    def _run_body(self, fn, block) -> tuple[list[Tensor], bool]:
        """Calls `fn` on Tensors for the block's arguments: (its results as Tensors, whether it returned one)."""
        _BUILDING.append(self)
        _core.wrap_depth[0] += 1
        try:
            with ir.InsertionPoint(block):
                out = fn(*[Tensor(a) for a in block.arguments])
                single = not isinstance(out, (tuple, list))
                return [_result(v, i) for i, v in enumerate([out] if single else out)], single
        finally:
            _core.wrap_depth[0] -= 1
            _BUILDING.pop()

    def _runtime(self):
        """The program compiled for the host and loaded (once per set of functions)."""
        if self._compiled is None:
            import oxla.runtime as rt
            artifact = self.compile("llvm-cpu")
            self._compiled = rt.load(artifact.vmfb, device=artifact.driver)
        return self._compiled


class Function:
    """A function of a Program: emits `func.call` inside another body, compiles and runs on arrays outside."""

    def __init__(self, program: Program, name: str, arguments, results, op, single: bool):
        self.program, self.name, self.arguments, self.results = program, name, arguments, results
        self.op, self.returns_one = op, single

    def __repr__(self) -> str:
        args = ", ".join(str(a) for a in self.arguments)
        return f"<function @{self.name}({args}) -> ({', '.join(str(r) for r in self.results)})>"

    def __call__(self, *args):
        if _BUILDING:
            return self._call_op(args)
        outputs = self.program._runtime()[self.name](*[_host_array(a) for a in args])
        outputs = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
        return outputs[0] if self.returns_one else tuple(outputs)

    def _call_op(self, args):
        """`func.call` of this function from the body being built."""
        if _BUILDING[-1] is not self.program:
            raise ValueError(f"@{self.name} belongs to another Program; functions can only call their own program's")
        if len(args) != len(self.arguments):
            raise TypeError(f"@{self.name} takes {len(self.arguments)} arguments, got {len(args)}")
        operands = []
        for i, (a, spec) in enumerate(zip(args, self.arguments)):
            t = F.as_tensor(a, spec.dtype if not isinstance(a, Tensor) else None)
            if t.type != spec.mlir_type():
                raise TypeError(f"@{self.name} argument {i}: expected {spec}, got {t.type} (at {_core.where()})")
            operands.append(t.value)
        loc = _core.default_location(ir.context())
        op = ir.Operation.create("func.call", results=[r.mlir_type() for r in self.results], operands=operands,
                                 attributes={"callee": ir.FlatSymbolRefAttr.get(self.name)}, loc=loc)
        out = [Tensor(r) for r in op.results]
        return out[0] if self.returns_one else tuple(out)


def _signature(fn, arg_specs) -> list[T.TensorSpec]:
    """The argument specs: `args=` when given, else the parameters' `Tensor[...]` annotations."""
    params = list(inspect.signature(fn).parameters.values())
    if arg_specs is not None:
        specs = [s if isinstance(s, T.TensorSpec) else T.TensorSpec.of(*s) for s in arg_specs]
        variadic = any(p.kind is p.VAR_POSITIONAL for p in params)
        if len(specs) != len(params) and not variadic:
            raise TypeError(f"{fn.__name__}: args= gives {len(specs)} types for {len(params)} parameters")
        return specs
    annotations = inspect.get_annotations(fn, eval_str=True)
    specs = []
    for p in params:
        spec = annotations.get(p.name)
        if not isinstance(spec, T.TensorSpec):
            raise TypeError(f"{fn.__name__}: parameter {p.name!r} needs a Tensor[...] annotation "
                            f"(e.g. Tensor[4, 8, 'f32']) or pass args=[...]")
        specs.append(spec)
    return specs


def _result(value, index: int) -> Tensor:
    """A function result as a Tensor (Python scalars and arrays become constants)."""
    try:
        return F.as_tensor(value)
    except TypeError:
        raise TypeError(f"result {index} of the function is {type(value).__name__}, not a Tensor") from None


def _check_return_annotation(fn, name: str, results: list[Tensor]) -> None:
    """When the function declares its result types, the built results must have them."""
    declared = inspect.get_annotations(fn, eval_str=True).get("return")
    if declared is None:
        return
    expected = list(declared) if isinstance(declared, (tuple, list)) else [declared]
    got = [T.TensorSpec(r.shape, r.dtype) for r in results]
    if got != expected:
        raise TypeError(f"{name}: returns {', '.join(map(str, got))} but is annotated "
                        f"-> {', '.join(map(str, expected))}")


def _host_array(a) -> np.ndarray:
    """An argument for a compiled call: arrays as they are, Python scalars at 32 bits."""
    if isinstance(a, bool):
        return np.asarray(a)
    if isinstance(a, int):
        return np.asarray(a, dtype=np.int32)
    if isinstance(a, float):
        return np.asarray(a, dtype=np.float32)
    if isinstance(a, complex):
        return np.asarray(a, dtype=np.complex64)
    return a if isinstance(a, np.ndarray) else np.asarray(a)
