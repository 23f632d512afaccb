"""ONNX models as StableHLO: `import_onnx(model)`.

    from oxla.importers.onnx import import_onnx

    imported = import_onnx("model.onnx")            # or a ModelProto, or its bytes
    print(imported.module)                          # func.func @main(%x: ...) -> ...
    oxla.compile_model(model_proto)(x_numpy)        # compiled for the CPU, numpy in and out

The steps, in order:

1. The model is loaded, converted to opset 17 when older (with
   `onnx.version_converter`), its local functions inlined, and its shapes
   inferred (`onnx.shape_inference`).
2. Constant propagation: every node whose inputs are all known (constants,
   initializers, results of such nodes, and `Shape`/`Size` of statically
   shaped values) is evaluated with numpy by ONNX's reference
   implementation, so the shapes, axes and indices StableHLO needs static
   are known, and the graph shrinks to what depends on the inputs.
3. Every remaining node's operator is checked against `OPERATORS`: all the
   unsupported ones are reported at once in an `UnsupportedOperatorsError`
   (with counts and node names), before anything is built.
4. Each remaining node is translated into StableHLO with oxla's builders
   (located at the node's name), into a function `main` whose arguments are
   the graph inputs (their names kept) and whose results are the graph
   outputs. Symbolic input sizes become dynamic dimensions.

Initializers become constants, or with `initializers_as="arguments"` the
floating-point ones (the weights) become extra arguments after the inputs;
integer and boolean initializers (shapes, axes, indices) stay constants.
"""

from __future__ import annotations

import os

try:
    import onnx
    from onnx.reference import ReferenceEvaluator
except ImportError as e:  # pragma: no cover - exercised by a test that hides onnx
    raise ImportError("oxla.importers.onnx needs the onnx package: pip install 'oxla[onnx]'") from e

import numpy as np

from oxla import ir
from oxla.builder.tensor import Tensor
from oxla.dialects.stablehlo import types as T
from oxla.importers.common import ImportedModel, check_arguments, check_supported
from oxla.importers.onnx_ops import OPERATORS, OnnxImportError, coverage_rows
from oxla.importers.onnx_ops.core import Node, attribute, constant, element_type

MIN_OPSET = 17
# Operators whose results differ from run to run: never evaluated at import time.
NOT_FOLDED = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
                        "Bernoulli", "If", "Loop", "Scan"})
DEFAULT_DOMAINS = ("", "ai.onnx")

__all__ = ["import_onnx", "OPERATORS", "coverage_rows", "OnnxImportError"]


def import_onnx(model, *example_args, initializers_as: str = "constants") -> ImportedModel:
    """An ONNX model (ModelProto, path or serialized bytes) as StableHLO, with numpy calling conventions.

    `example_args`, when given, are checked against the graph inputs
    (ValueError on a mismatch). `initializers_as` is "constants" or
    "arguments" (floating-point initializers become trailing arguments).
    """
    if initializers_as not in ("constants", "arguments"):
        raise ValueError(f"initializers_as must be 'constants' or 'arguments', got {initializers_as!r}")
    importer = _Importer(prepare(load(model)), initializers_as)
    importer.fold()
    importer.check_supported()
    imported = importer.build()
    if example_args:
        imported.flatten_inputs(*example_args)
    return imported


# Loading and preparing ---------------------------------------------------------------------------------------------

def load(model) -> onnx.ModelProto:
    """A ModelProto from a ModelProto, a path (external data included) or serialized bytes."""
    if isinstance(model, onnx.ModelProto):
        return model
    if isinstance(model, (bytes, bytearray)):
        return onnx.load_from_string(bytes(model))
    if isinstance(model, (str, os.PathLike)):
        if not os.path.exists(model):
            raise FileNotFoundError(f"no ONNX model at {os.fspath(model)!r}")
        return onnx.load(os.fspath(model))
    raise TypeError(f"expected an onnx.ModelProto, a path or bytes, got {type(model).__name__}")


def opset_of(model: onnx.ModelProto) -> int:
    """The model's version of the default ONNX domain."""
    for entry in model.opset_import:
        if entry.domain in DEFAULT_DOMAINS:
            return entry.version
    raise OnnxImportError("the model imports no version of the default ONNX domain (opset_import)")


def prepare(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model at opset 17 or later, local functions inlined, shapes inferred."""
    opset = opset_of(model)
    if opset < MIN_OPSET:
        try:
            model = onnx.version_converter.convert_version(model, MIN_OPSET)
        except Exception as e:  # the converter raises several types, none of them documented
            raise OnnxImportError(f"the model has opset {opset}; oxla imports opset {MIN_OPSET} and later, and "
                                  f"converting it with onnx.version_converter failed: {e}") from None
    if model.functions:
        model = onnx.inliner.inline_local_functions(model)
    try:
        return onnx.shape_inference.infer_shapes(model, data_prop=True)
    except Exception as e:  # onnx raises InferenceError or ValidationError subclasses
        raise OnnxImportError(f"ONNX shape inference rejected the model: {e}") from None


def _shape_of(type_proto) -> list | None:
    """A tensor type's dimensions (None for symbolic or unknown ones), or None without a shape."""
    tensor = type_proto.tensor_type
    if not tensor.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim]


def _type_of(type_proto) -> tuple[list | None, int] | None:
    """(dimensions, ONNX element type) of a tensor type, or None for non-tensor types."""
    if not type_proto.HasField("tensor_type"):
        return None
    return _shape_of(type_proto), type_proto.tensor_type.elem_type


def _location(node: onnx.NodeProto, index: int) -> str:
    """Where a node is, for messages: its name, or its position and outputs."""
    return node.name or f"node {index} ({', '.join(node.output)})"


def _label(node: onnx.NodeProto) -> str:
    """The operator as the unsupported-operator report names it (domain-qualified, variant noted)."""
    if node.domain not in DEFAULT_DOMAINS:
        return f"{node.domain}.{node.op_type}"
    op = OPERATORS.get(node.op_type)
    variant = op.unsupported(node) if op is not None and op.unsupported is not None else None
    return f"{node.op_type}({variant})" if variant else node.op_type


def _partial_slice(node, data, starts, ends, axes=None, steps=None):
    """Slice of a partial value."""
    index = [slice(None)] * data.ndim
    axes = range(len(starts)) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    for a, b, e, s in zip(axes, starts, ends, steps):
        index[int(a)] = slice(int(b), int(e), int(s))
    return data[tuple(index)]


def _unsqueezed(data, axes):
    """Unsqueeze of a partial value."""
    for a in sorted(int(a) % (data.ndim + len(axes)) for a in axes):
        data = np.expand_dims(data, a)
    return data


def _squeezed(data, axes):
    """Squeeze of a partial value (every size-1 axis when `axes` is None)."""
    return np.squeeze(data) if axes is None else np.squeeze(data, tuple(int(a) for a in axes))


def _cast_to_int64(node, data):
    """Cast of a partial value: only to int64, the type shapes have (other casts are not folded)."""
    if attribute(node, "to") != onnx.TensorProto.INT64:
        raise TypeError("only casts to int64 keep shape values")
    return data


# ONNX operator: its evaluation on partial values (numpy object arrays, None where unknown)
PARTIAL_RULES = {
    "Gather": lambda node, data, indices: np.take(data, np.asarray(indices, np.int64), axis=attribute(node, "axis", 0)),
    "Slice": _partial_slice,
    "Concat": lambda node, *parts: np.concatenate([np.asarray(p, dtype=object) for p in parts],
                                                  axis=attribute(node, "axis")),
    "Unsqueeze": lambda node, data, axes=None: _unsqueezed(data, axes if axes is not None else attribute(node, "axes")),
    "Squeeze": lambda node, data, axes=None: _squeezed(data, axes if axes is not None else attribute(node, "axes")),
    "Identity": lambda node, data: data,
    "Cast": lambda node, data: _cast_to_int64(node, data),
}


# The importer ------------------------------------------------------------------------------------------------------

class _Importer:
    """One model being imported: its values known at import time, its types, and the function being built."""

    def __init__(self, model: onnx.ModelProto, initializers_as: str):
        self.model, self.graph = model, model.graph
        self.opset = opset_of(model)
        self.initializers = {t.name: onnx.numpy_helper.to_array(t) for t in self.graph.initializer}
        self.weight_arguments = [name for name, a in self.initializers.items()
                                 if initializers_as == "arguments" and np.issubdtype(a.dtype, np.floating)]
        self.values: dict[str, np.ndarray] = {k: v for k, v in self.initializers.items()
                                               if k not in self.weight_arguments}
        self.inputs = [i for i in self.graph.input if i.name not in self.initializers]
        self.types = {v.name: _type_of(v.type) for v in
                      list(self.graph.input) + list(self.graph.value_info) + list(self.graph.output)}
        for name, array in self.initializers.items():
            self.types[name] = (list(array.shape), onnx.helper.np_dtype_to_tensor_dtype(array.dtype))
        self.folded: set[int] = set()
        self.partial: dict[str, np.ndarray] = {}  # shape values known in part: object arrays, None where dynamic
        self.env: dict[str, Tensor] = {}

    # Constant propagation ------------------------------------------------------------------------------------------

    def fold(self) -> None:
        """Evaluates, in graph order, every node whose inputs are all known at import time."""
        for index, node in enumerate(self.graph.node):
            outputs = self._evaluate(node)
            if outputs is not None:
                self.folded.add(index)
                for name, value in zip(node.output, outputs):
                    if name:
                        self.values[name] = np.asarray(value)

    def _evaluate(self, node: onnx.NodeProto) -> list | None:
        """The node's outputs computed with numpy, or None when they depend on run-time values."""
        if node.domain not in DEFAULT_DOMAINS or node.op_type in NOT_FOLDED:
            return None
        if node.op_type in ("Shape", "Size"):
            return self._static_shape(node)
        given = [name for name in node.input if name]
        if not all(name in self.values for name in given):
            return self._evaluate_partial(node)
        try:
            evaluator = ReferenceEvaluator(node, opsets={"": self.opset})
            return evaluator.run(None, {name: self.values[name] for name in given})
        except Exception:  # an operator the reference cannot evaluate here is translated instead
            return None

    def _static_shape(self, node: onnx.NodeProto) -> list | None:
        """Shape or Size of a value whose (selected) dimensions are all static."""
        known = self.types.get(node.input[0])
        if not known or known[0] is None:
            return None
        dims = known[0]
        if node.op_type == "Size":
            return None if None in dims else [np.asarray(int(np.prod(dims, dtype=np.int64)), np.int64)]
        attrs = {a.name: a.i for a in node.attribute}
        picked = dims[slice(attrs.get("start", 0), attrs.get("end", len(dims)))]
        if None in picked:
            self.partial[node.output[0]] = np.asarray(picked, dtype=object)
            return None
        return [np.asarray(picked, np.int64)]

    def _evaluate_partial(self, node: onnx.NodeProto) -> list | None:
        """Shape arithmetic on values known in part (Gather/Slice/Concat/... of a partly dynamic Shape).

        The result is folded when every element it picks is known, and kept
        as a partial value otherwise.
        """
        rule = PARTIAL_RULES.get(node.op_type)
        given = [name for name in node.input if name]
        if rule is None or not any(name in self.partial for name in given) or \
                not all(name in self.partial or name in self.values for name in given):
            return None
        inputs = [self.partial.get(name, self.values.get(name)) for name in node.input]
        try:
            result = np.asarray(rule(node, *inputs), dtype=object)
        except (ValueError, IndexError, TypeError):
            return None
        if any(v is None for v in result.reshape(-1)):
            self.partial[node.output[0]] = result
            return None
        return [result.astype(np.int64)]

    # Checks --------------------------------------------------------------------------------------------------------

    def check_supported(self) -> None:
        """UnsupportedOperatorsError listing every operator left to translate that has no translation."""
        used = [(_label(node), _location(node, i)) for i, node in enumerate(self.graph.node) if i not in self.folded]
        check_supported("onnx", used, lambda label: label in OPERATORS)

    # Building ------------------------------------------------------------------------------------------------------

    def known(self, name: str) -> np.ndarray | None:
        """The value of `name` when it is known at import time."""
        return self.values.get(name)

    def tensor(self, name: str) -> Tensor:
        """The Tensor for value `name` (import-time values become constants, once each)."""
        if name not in self.env:
            if name not in self.values:
                raise OnnxImportError(f"value {name!r} is used before any node produces it")
            self.env[name] = constant(self.values[name])
        return self.env[name]

    def argument_specs(self) -> list[tuple[str, list, str]]:
        """(name, dimensions, element type) of each function argument: the inputs, then weight initializers."""
        specs = []
        for value in self.inputs:
            known = _type_of(value.type)
            if known is None or known[0] is None:
                raise OnnxImportError(f"graph input {value.name!r} must be a tensor with a known rank")
            specs.append((value.name, known[0], element_type(known[1])))
        for name in self.weight_arguments:
            array = self.initializers[name]
            specs.append((name, list(array.shape), element_type(onnx.helper.np_dtype_to_tensor_dtype(array.dtype))))
        return specs

    def build(self) -> ImportedModel:
        """The `main` function: arguments, one translation per remaining node, the graph outputs returned."""
        specs = self.argument_specs()
        with ir.context(), ir.Location.unknown():
            module = ir.Module.create()
            types = [T.tensor_type(shape, dtype) for _, shape, dtype in specs]
            with ir.InsertionPoint(module.body):
                func = ir.Operation.create("func.func", regions=1, attributes={
                    "sym_name": ir.StringAttr.get("main"),
                    "function_type": ir.TypeAttr.get(ir.FunctionType.get(types, []))})
            block = func.regions[0].blocks.append(*types, arg_locs=[ir.Location.name(n) for n, _, _ in specs])
            for (name, _, _), argument in zip(specs, block.arguments):
                self.env[name] = Tensor(argument)
            with ir.InsertionPoint(block):
                for index, node in enumerate(self.graph.node):
                    if index not in self.folded:
                        self._translate(node, index)
                results = [self.tensor(o.name) for o in self.graph.output]
                ir.Operation.create("func.return", operands=[r.value for r in results])
            func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(types, [r.type for r in results]))
            _verify(module)
        return self._imported(module, specs, results)

    def _translate(self, proto: onnx.NodeProto, index: int) -> None:
        """Builds one node at its name's location and records its outputs."""
        node = Node(proto, self, _location(proto, index))
        with ir.Location.name(node.name):
            try:
                outputs = OPERATORS[proto.op_type].translate(node)
            except OnnxImportError:
                raise
            except (TypeError, ValueError, NotImplementedError) as e:
                raise OnnxImportError(f"{proto.op_type} node {node.name!r}: {e}") from e
        outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        for name, value in zip(proto.output, outputs):
            if not name or value is None:
                continue
            if isinstance(value, np.ndarray):
                self.values[name] = value
            else:
                self.env[name] = value if isinstance(value, Tensor) else Tensor(value)
        missing = [name for name, value in zip(proto.output, list(outputs) + [None] * len(proto.output)) if name and
                   value is None]
        if missing:
            node.fail(f"outputs {missing} are not produced by the translation")

    def _imported(self, module, specs, results) -> ImportedModel:
        """The ImportedModel with numpy calling conventions (inputs by position or name)."""
        input_names = [name for name, _, _ in specs]
        expected = [(shape, T.to_numpy_dtype(T.element_type(dtype))) for _, shape, dtype in specs]
        defaults = {name: self.initializers[name] for name in self.weight_arguments}
        output_names = [o.name for o in self.graph.output]
        return ImportedModel(
            module=module, framework="onnx", function="main", input_names=input_names, output_names=output_names,
            flatten_inputs=_flattener(input_names, expected, defaults),
            unflatten_outputs=lambda arrays: arrays[0] if len(arrays) == 1 else list(arrays))


def _verify(module) -> None:
    """OnnxImportError with MLIR's diagnostics when the built module does not verify."""
    try:
        module.operation.verify()
    except ir.MLIRError as e:
        messages = "; ".join(d.message for d in e.error_diagnostics) or str(e)
        raise OnnxImportError(f"the imported module does not verify: {messages}") from None


def _flattener(names: list[str], expected: list, defaults: dict):
    """flatten_inputs: positional arrays in input order, or keywords by name (or one dict); defaults fill in."""
    def flatten(*args, **named) -> list[np.ndarray]:
        if len(args) == 1 and isinstance(args[0], dict) and not named:
            args, named = (), dict(args[0])
        required = [n for n in names if n not in defaults]
        if len(args) > len(names):
            raise ValueError(f"expected at most {len(names)} inputs ({', '.join(names)}), got {len(args)}")
        given = dict(zip(names, args))
        for name, value in named.items():
            if name not in names:
                raise ValueError(f"the model has no input named {name!r} (inputs: {', '.join(names)})")
            if name in given:
                raise ValueError(f"input {name!r} is given twice")
            given[name] = value
        missing = [n for n in required if n not in given]
        if missing:
            raise ValueError(f"missing input(s) {', '.join(map(repr, missing))}; the model takes "
                             f"{', '.join(required)}")
        arrays = [np.asarray(given[n] if n in given else defaults[n]) for n in names]
        concrete = [(tuple(a.shape[i] if d is None and i < a.ndim else d for i, d in enumerate(shape)), dtype)
                    for (shape, dtype), a in zip(expected, arrays)]
        check_arguments(concrete, arrays, names)
        return arrays
    return flatten
