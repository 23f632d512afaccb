"""`import_model` picks an importer by the model's type; `compile_model` imports, compiles and wraps it."""

from __future__ import annotations

import importlib

from oxla.importers.common import ImportedModel

# module of the framework's types -> (oxla importer module, its import function)
_IMPORTERS = (
    ("jax", "oxla.importers.jax", "import_jax"),
    ("torch", "oxla.importers.torch", "import_torch"),
    ("onnx", "oxla.importers.onnx", "import_onnx"),
)


def _framework_of(model) -> str:
    """"jax", "torch" or "onnx" from where the model's type (or a jitted function's wrapper) comes from."""
    for cls in type(model).__mro__:  # a user's nn.Module subclass is torch's through its bases
        kind = cls.__module__.split(".")[0]
        if kind in ("jax", "jaxlib", "torch", "onnx"):
            return "jax" if kind == "jaxlib" else kind
    if isinstance(model, (bytes, bytearray)):
        return "jax"  # a serialized portable artifact (jax.export)
    if callable(model):
        return "jax"  # a plain Python function over jax.numpy, traced by jax.jit
    raise TypeError(f"cannot tell which framework {type(model).__name__} comes from; "
                    "call oxla.importers.<framework>.import_<framework> directly")


def import_model(model, *example_args, **options) -> ImportedModel:
    """The model as StableHLO, by the importer of its framework."""
    framework = _framework_of(model)
    module_name, function = next((m, f) for k, m, f in _IMPORTERS if k == framework)
    importer = getattr(importlib.import_module(module_name), function)
    return importer(model, *example_args, **options)


class CompiledModel:
    """A compiled model: call it with the framework's arrays (or numpy) and get the framework's results."""

    def __init__(self, imported: ImportedModel, target: str, device: str | None):
        import oxla.runtime as rt
        from oxla.pipelines import compile as compile_module

        self.imported, self.target = imported, target
        self.artifact = compile_module(imported.module, target)
        self._module = rt.load(self.artifact.vmfb, device=device or self.artifact.driver)
        self._function = self._module[imported.function]

    def __call__(self, *args, **kwargs):
        inputs = self.imported.flatten_inputs(*args, **kwargs)
        outputs = self._function(*inputs)
        outputs = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
        return self.imported.unflatten_outputs(outputs)

    def __repr__(self) -> str:
        return f"<CompiledModel {self.imported.framework} -> {self.target}>"


def compile_model(model, *example_args, target: str = "llvm-cpu", device: str | None = None, **options) -> CompiledModel:
    """Imports `model` (traced with `example_args` where the framework needs them) and compiles it for `target`.

    An ImportedModel (what import_model returns) is compiled as it is: import once, compile for several targets.
    """
    imported = model if isinstance(model, ImportedModel) else import_model(model, *example_args, **options)
    return CompiledModel(imported, target, device)
