"""PyTorch models into StableHLO: `torch.export` graphs lowered op by op with oxla's builders.

    from oxla.importers.torch import import_torch

    imported = import_torch(model, x)              # torch.export.export(model, (x,)), then lowering
    imported = import_torch(exported_program)      # the default export or its Core ATen form
    compiled = oxla.compile_model(model, x)        # a callable taking and returning torch tensors

- The graph is walked node by node; each ATen operator has one translation
  in the operator table (`oxla.importers.torch_ops`, see `coverage_rows()`).
  Before anything is built, every operator without a translation (or used
  in a way its translation rejects, such as dropout in training mode) is
  collected with its count and source lines into one
  `UnsupportedOperatorsError`.
- Graphs with in-place ops or grad-mode regions (the default export of
  `torch.export`) are first made functional by torch itself
  (`run_decompositions({})`, which decomposes nothing else).
- Parameters and buffers become arguments of `main` (`params_as="arguments"`,
  the default; `flatten_inputs` passes their current values, so callers pass
  only the forward's inputs) or constants (`params_as="constants"`).
- Dimensions torch.export marks dynamic (`dynamic_shapes=`) stay dynamic in
  the StableHLO types; sizes computed from them are read at run time.
"""

from __future__ import annotations

import inspect
import os
import re

try:
    import torch
except ImportError as e:  # pragma: no cover - exercised only without torch
    raise ImportError("oxla.importers.torch needs PyTorch: pip install 'oxla[torch]'") from e

import ml_dtypes
import numpy as np
from torch.export.graph_signature import (
    ConstantArgument, InputKind, OutputKind, SymIntArgument, TensorArgument)
from torch.utils import _pytree as pytree

from oxla import ir
from oxla.builder import Program, Tensor
from oxla.dialects import stablehlo as shlo
from oxla.dialects.elements import DTYPES as NUMPY_DTYPES
from oxla.importers.common import ImportedModel, UnsupportedOperatorsError, check_arguments, check_supported
from oxla.importers.torch_ops import OPS, UNSUPPORTED, bind, coverage_rows, op_name
from oxla.importers.torch_ops.lowering import ELEMENTS, Lowering, Sym, element

__all__ = ["import_torch", "coverage_rows", "OPS", "UNSUPPORTED", "UnsupportedOperatorsError"]


def import_torch(model, *example_args, example_kwargs: dict | None = None, dynamic_shapes=None,
                 params_as: str = "arguments") -> ImportedModel:
    """A torch.nn.Module (exported with `example_args`) or a torch.export.ExportedProgram as StableHLO.

    `example_args` are the forward's positional arguments, given one by one
    or as one tuple (as `torch.export.export` takes them).
    """
    if params_as not in ("arguments", "constants"):
        raise ValueError(f"params_as must be 'arguments' or 'constants', got {params_as!r}")
    args = example_args[0] if len(example_args) == 1 and isinstance(example_args[0], tuple) else example_args
    kwargs = dict(example_kwargs or {})
    ep, module = _exported(model, args, kwargs, dynamic_shapes)
    ep = _functional(ep)
    _check_operators(ep)
    signature = _Signature(ep, module, params_as)
    program = Program()
    program.function(lambda *values: _lower_graph(ep, signature, values), name="main", args=signature.argument_specs)
    return ImportedModel(module=program.module, framework="torch", input_names=signature.input_names,
                         output_names=signature.output_names, flatten_inputs=signature.flatten,
                         unflatten_outputs=signature.unflatten)


# Exporting --------------------------------------------------------------------------------------------------------

class _Function(torch.nn.Module):
    """A plain function over tensors as a module, so that torch.export can trace it."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


def _exported(model, args: tuple, kwargs: dict, dynamic_shapes):
    """(the ExportedProgram, the module whose parameters feed it, or None)."""
    if isinstance(model, torch.export.ExportedProgram):
        if dynamic_shapes is not None:
            raise ValueError("dynamic_shapes applies when exporting a module; this program is already exported")
        if args or kwargs:
            _Signature(model, None, "arguments").user_arrays(args, kwargs)  # ValueError when they do not fit
        return model, None
    if not isinstance(model, torch.nn.Module):
        if not callable(model):
            raise TypeError(f"import_torch takes a torch.nn.Module, an ExportedProgram or a function, "
                            f"got {type(model).__name__}")
        model = _Function(model)
    forward = model.forward
    try:
        inspect.signature(forward).bind(*args, **kwargs)
    except TypeError as e:
        raise ValueError(f"the example arguments do not match {type(model).__name__}.forward: {e}") from None
    try:
        ep = torch.export.export(model, args, kwargs=kwargs, dynamic_shapes=dynamic_shapes)
    except Exception as e:  # torch raises many types; all mean the example did not trace
        raise ValueError(f"torch.export.export failed on the example arguments: {type(e).__name__}: {e}") from e
    return ep, model


def _functional(ep):
    """The program without in-place ops or grad-mode regions (torch's functionalization, no decomposition)."""
    def impure(node):
        target = node.target
        if isinstance(target, torch._ops.HigherOrderOperator):
            return target.name() in ("wrap_with_set_grad_enabled", "wrap_with_autocast")
        return isinstance(target, torch._ops.OpOverload) and target._schema.is_mutable
    if any(node.op == "call_function" and impure(node) for node in ep.graph.nodes):
        return ep.run_decompositions({})
    return ep


# Source locations -------------------------------------------------------------------------------------------------

_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def _source(node) -> tuple[str, int] | None:
    """(file, line) of the innermost frame of the node's stack trace."""
    frames = _FRAME.findall(node.meta.get("stack_trace") or "")
    return (frames[-1][0], int(frames[-1][1])) if frames else None


def _module_path(node) -> str:
    """The submodule that called the op, as "path (Class)", when torch recorded it."""
    stack = node.meta.get("nn_module_stack")
    if not stack:
        return ""
    path, cls = list(stack.values())[-1]
    name = cls.rsplit(".", 1)[-1] if isinstance(cls, str) else getattr(cls, "__name__", str(cls))
    path = re.sub(r"^L\['self'\]\.?|^L__self___?", "", str(path))
    return f"{path} ({name})" if path else name


def _where(node) -> str:
    """Where a node comes from, for messages: "file.py:12 in encoder.layer.0 (BertLayer)"."""
    source, module = _source(node), _module_path(node)
    text = f"{os.path.basename(source[0])}:{source[1]}" if source else ""
    return f"{text} in {module}" if text and module else text or module


def _mlir_location(node) -> ir.Location:
    """The node's name at its source line."""
    source = _source(node)
    inner = ir.Location.file(source[0], source[1], 0) if source else ir.Location.unknown()
    return ir.Location.name(node.name, childLoc=inner)


# Checks before lowering -------------------------------------------------------------------------------------------

def _check_operators(ep) -> None:
    """One UnsupportedOperatorsError for every untranslatable operator, mutation or input kind in the program."""
    used = []
    for node in ep.graph.nodes:
        if node.op != "call_function":
            continue
        name = op_name(node.target)
        translation = OPS.get(name)
        reason = UNSUPPORTED.get(name) if translation is None else \
            translation.check(node, bind(node.target, node.args, node.kwargs)) if translation.check else None
        used.append((f"{name} ({reason})" if reason else name, _where(node)))
    signature = ep.graph_signature
    for spec in signature.output_specs:
        if spec.kind != OutputKind.USER_OUTPUT:
            used.append((f"<{spec.kind.name.lower().replace('_', ' ')} of {spec.target}: compiled functions do not "
                         f"update module state>", ""))
    for spec in signature.input_specs:
        if spec.kind not in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR, InputKind.USER_INPUT):
            used.append((f"<{spec.kind.name.lower()} input {spec.arg}>", ""))
    check_supported("torch", used, lambda name: name in OPS)


# The calling convention -------------------------------------------------------------------------------------------

def _to_numpy(t) -> np.ndarray:
    """A tensor's values as numpy (bf16 through ml_dtypes)."""
    if isinstance(t, np.ndarray):
        return t
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def _to_torch(a: np.ndarray) -> torch.Tensor:
    """A numpy result as a torch tensor (bf16 through its bits)."""
    a = np.asarray(a)
    if a.dtype.name == "bfloat16":
        return torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(np.array(a, copy=True))


def _traced_shape(fake) -> list:
    """A FakeTensor's shape: ints, or the SymInt where torch kept the size symbolic."""
    return [int(d.node.expr) if isinstance(d, torch.SymInt) and d.node.expr.is_number else
            d if isinstance(d, torch.SymInt) else int(d) for d in fake.shape]


class _Signature:
    """How the program's inputs and outputs map to `main`'s arguments and results, both ways."""

    def __init__(self, ep, module, params_as: str):
        self.ep, self.module, self.params_as = ep, module, params_as
        placeholders = [n for n in ep.graph.nodes if n.op == "placeholder"]
        self.inputs = list(zip(placeholders, ep.graph_signature.input_specs))
        self.arguments = [(node, spec) for node, spec in self.inputs if self._is_argument(spec)]
        self.user_inputs = [(node, spec) for node, spec in self.inputs if spec.kind == InputKind.USER_INPUT]
        self.argument_specs = [self._argument_spec(node) for node, _ in self.arguments]
        self.input_names = [spec.target if spec.kind != InputKind.USER_INPUT else spec.arg.name
                            for _, spec in self.arguments]
        self.outputs = [spec for spec in ep.graph_signature.output_specs if spec.kind == OutputKind.USER_OUTPUT]
        self.leaf_names = _leaf_names(ep.call_spec.out_spec, len(self.outputs))
        self.output_names: list[str] = []  # of `main`'s results, known once the graph is lowered
        self.range_constraints = {str(k): v for k, v in ep.range_constraints.items()}
        self.static_ints: dict = {}  # symbolic-int outputs that turned out static, by node name

    def _is_argument(self, spec) -> bool:
        """Whether an input is an argument of `main` (tensors and symbolic ints the caller passes)."""
        if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            return self.params_as == "arguments"
        return spec.kind == InputKind.USER_INPUT and isinstance(spec.arg, (TensorArgument, SymIntArgument))

    @staticmethod
    def _argument_spec(node) -> tuple:
        """(shape with None for dynamic dimensions, element type) of one argument."""
        fake = node.meta["val"]
        if not isinstance(fake, torch.Tensor):
            return (), "i64"
        return [d if isinstance(d, int) else None for d in _traced_shape(fake)], element(fake.dtype)

    # Values of parameters, buffers and constants.

    def state(self, spec) -> torch.Tensor:
        """The current value of a parameter, buffer or lifted constant."""
        target = spec.target
        if spec.kind == InputKind.CONSTANT_TENSOR:
            return self.ep.constants[target]
        if self.module is not None:
            try:
                return (self.module.get_parameter(target) if spec.kind == InputKind.PARAMETER
                        else self.module.get_buffer(target))
            except AttributeError:
                pass
        return self.ep.state_dict[target] if target in self.ep.state_dict else self.ep.constants[target]

    # Arguments.

    def user_arrays(self, args: tuple, kwargs: dict) -> list:
        """The forward's arguments as the arrays of the user inputs (ValueError naming what does not fit)."""
        in_spec = self.ep.call_spec.in_spec
        expected_keys = list(in_spec.child(1).context) if in_spec.num_children == 2 else []
        if set(kwargs) - set(expected_keys):
            raise ValueError(f"unexpected keyword argument(s) {sorted(set(kwargs) - set(expected_keys))}; the "
                             f"program was exported with {expected_keys or 'none'}")
        ordered = {k: kwargs[k] for k in expected_keys if k in kwargs}
        leaves, spec = pytree.tree_flatten((tuple(args), ordered))
        if spec != in_spec:
            expected = pytree.tree_unflatten([_Leaf(s) for _, s in self.user_inputs], in_spec)
            raise ValueError(f"the arguments do not have the exported structure: expected (args, kwargs) like "
                             f"{expected}, got {pytree.tree_unflatten([_Leaf(None)] * len(leaves), spec)}")
        arrays = []
        sizes: dict = {}
        for i, (leaf, (node, spec)) in enumerate(zip(leaves, self.user_inputs)):
            name = spec.arg.name if hasattr(spec.arg, "name") else f"argument {i}"
            if isinstance(spec.arg, ConstantArgument):
                if not _same_constant(leaf, spec.arg.value):
                    raise ValueError(f"{name}: the program was exported with the constant {spec.arg.value!r}, "
                                     f"got {leaf!r}")
                continue
            if isinstance(spec.arg, SymIntArgument):
                arrays.append(np.asarray(int(leaf), np.int64))
                continue
            arrays.append(self._tensor_argument(name, leaf, node.meta["val"], sizes))
        return arrays

    def _tensor_argument(self, name: str, leaf, fake, sizes: dict) -> np.ndarray:
        """One tensor argument as numpy, checked against the traced dtype and (symbolic) shape."""
        if not isinstance(leaf, (torch.Tensor, np.ndarray)):
            raise ValueError(f"{name}: expected a tensor, got {type(leaf).__name__}")
        array = _to_numpy(leaf)
        shape = _traced_shape(fake)
        if len(shape) == array.ndim:
            for d, (want, got) in enumerate(zip(shape, array.shape)):
                if isinstance(want, torch.SymInt):
                    self._check_symbolic_size(name, d, want, got, sizes)
                    shape[d] = got
        check_arguments([(tuple(shape), NUMPY_DTYPES[element(fake.dtype)])], [array], [name])
        return array

    def _check_symbolic_size(self, name: str, d: int, want, got: int, sizes: dict) -> None:
        """A dynamic dimension's size: within torch's range for it and equal wherever the symbol recurs."""
        symbol = str(want.node.expr)
        if symbol in sizes and sizes[symbol] != got:
            raise ValueError(f"{name}: dimension {d} is {got}, but the same dynamic size {symbol} is "
                             f"{sizes[symbol]} in another argument")
        sizes[symbol] = got
        bounds = self.range_constraints.get(symbol)
        if bounds is not None and (got < bounds.lower or (bounds.upper.is_finite and got > bounds.upper)):
            raise ValueError(f"{name}: dimension {d} is {got}, outside the range [{bounds.lower}, {bounds.upper}] "
                             f"it was exported with")

    def flatten(self, *args, **kwargs) -> list[np.ndarray]:
        """`main`'s arguments for a call of the forward: current parameters and buffers, then the inputs."""
        user = iter(self.user_arrays(args, kwargs))
        return [next(user) if spec.kind == InputKind.USER_INPUT else _to_numpy(self.state(spec))
                for _, spec in self.arguments]

    # Results.

    def result_values(self, values: dict) -> list[Tensor]:
        """The tensors `main` returns for the outputs' lowered values (by node name); records their names and
        the symbolic-int outputs that came out static."""
        out, self.output_names = [], []
        for spec, name in zip(self.outputs, self.leaf_names):
            v = values.get(spec.arg.name) if not isinstance(spec.arg, ConstantArgument) else None
            if isinstance(v, int):
                self.static_ints[spec.arg.name] = v
            if isinstance(v, Sym):
                v = v.value
            if isinstance(v, Tensor):
                out.append(v)
                self.output_names.append(name)
        return out

    def unflatten(self, arrays: list) -> object:
        """`main`'s results as the forward's output structure of torch tensors (ints for symbolic ints)."""
        arrays = iter(arrays)
        leaves = []
        for spec in self.outputs:
            if isinstance(spec.arg, ConstantArgument):
                leaves.append(spec.arg.value)
            elif isinstance(spec.arg, SymIntArgument):
                value = self.static_ints.get(spec.arg.name)
                leaves.append(value if value is not None else int(np.asarray(next(arrays))))
            else:
                leaves.append(_to_torch(next(arrays)))
        return pytree.tree_unflatten(leaves, self.ep.call_spec.out_spec)


class _Leaf:
    """An argument's place in messages about the expected structure."""

    def __init__(self, spec):
        self.spec = spec

    def __repr__(self) -> str:
        if self.spec is None:
            return "<value>"
        arg = self.spec.arg
        return f"<{getattr(arg, 'name', 'constant')}>"


def _same_constant(a, b) -> bool:
    """Whether a call's argument equals the constant the program was exported with."""
    try:
        return bool(a == b)
    except Exception:
        return a is b


def _leaf_names(spec, n: int) -> list[str]:
    """Names of the output leaves from their paths in the output structure ("last_hidden_state", "pair.0")."""
    def part(key) -> str:
        return str(next((getattr(key, a) for a in ("key", "idx", "name") if hasattr(key, a)), key))
    try:
        paths = pytree.tree_flatten_with_path(pytree.tree_unflatten(list(range(spec.num_leaves)), spec))[0]
    except Exception:  # a structure torch cannot rebuild from leaves: numbered names
        paths = []
    names = [".".join(part(k) for k in path) or "output" for path, _ in paths]
    return names if len(names) == n else [f"output{i}" for i in range(n)]


# Lowering ---------------------------------------------------------------------------------------------------------

def _lower_graph(ep, signature: _Signature, arguments) -> list[Tensor]:
    """The body of `main`: inputs bound, every call lowered in graph order, the outputs returned."""
    cx = Lowering()
    given = iter(arguments)
    passed = {node.name for node, _ in signature.arguments}
    for node, spec in signature.inputs:
        with _mlir_location(node):
            if node.name in passed:
                value = next(given)
                fake = node.meta["val"]
                if isinstance(fake, torch.Tensor):
                    cx.bind_symbols(fake, value)
                else:
                    value = Sym(value)
            elif isinstance(spec.arg, ConstantArgument):
                value = spec.arg.value
            else:
                value = shlo.constant(_to_numpy(signature.state(spec)))
        cx.values[node] = value
    for node in ep.graph.nodes:
        if node.op == "call_function":
            _lower_node(cx, node)
    return signature.result_values({node.name: cx.values.get(node) for node in ep.graph.nodes})


def _resolve(cx, arg):
    """An argument with graph nodes replaced by their lowered values."""
    if isinstance(arg, torch.fx.Node):
        return cx.values[arg]
    if isinstance(arg, (list, tuple)):
        return type(arg)(_resolve(cx, a) for a in arg)
    return arg


_LOCATED_ERRORS = (NotImplementedError, IndexError, TypeError, ValueError)


def _lower_node(cx: Lowering, node) -> None:
    """Lowers one call: its translation at the node's source location, then a check against torch's trace."""
    name = op_name(node.target)
    cx.node = node
    args = [_resolve(cx, a) for a in bind(node.target, node.args, node.kwargs)]
    with _mlir_location(node):
        try:
            value = OPS[name].lower(cx, *args)
        except _LOCATED_ERRORS as e:  # the same kind of error, saying which node of the model it was
            kind = next(k for k in _LOCATED_ERRORS if isinstance(e, k))
            raise kind(f"{name} ({node.name}) at {_where(node) or 'an unknown place'}: {e}") from e
    _check_result(name, node, value)
    cx.values[node] = value


def _check_result(name: str, node, value) -> None:
    """The lowered value has the dtype and static sizes torch traced (a mismatch is a translation bug)."""
    traced = node.meta.get("val")
    pairs = zip(value, traced) if isinstance(value, tuple) and isinstance(traced, (tuple, list)) else [(value, traced)]
    for v, t in pairs:
        if not isinstance(v, Tensor) or not isinstance(t, torch.Tensor):
            continue
        expected = [d if isinstance(d, int) else None for d in _traced_shape(t)]
        same_dims = len(expected) == v.ndim and all(e is None or e == g for e, g in zip(expected, v.shape))
        if ELEMENTS.get(t.dtype) != v.dtype or not same_dims:
            raise RuntimeError(f"oxla's translation of {name} ({node.name}) built {v.type}, but torch traced "
                               f"{t.dtype}{list(t.shape)}")
