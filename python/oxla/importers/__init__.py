"""Framework importers: JAX, PyTorch and ONNX models into StableHLO, and `compile_model`.

- `oxla.importers.jax.import_jax(fn_or_exported, *example_args)`
- `oxla.importers.torch.import_torch(module_or_exported_program, example_args)`
- `oxla.importers.onnx.import_onnx(model_proto)`
- `import_model(model, *example_args)` picks the importer by the model's type;
  `compile_model(model, *example_args, target=...)` imports, compiles, and
  returns a callable taking and returning the framework's own arrays.

Each importer reports every operator it cannot translate in one
`UnsupportedOperatorsError` before lowering anything; mismatched example
arguments raise `ValueError`. Framework packages are optional: importing an
importer whose framework is missing raises ImportError with the pip extra.
"""

from oxla.importers.common import ImportedModel, UnsupportedOperatorsError
from oxla.importers.compile_model import CompiledModel, compile_model, import_model

__all__ = ["ImportedModel", "UnsupportedOperatorsError", "CompiledModel", "compile_model", "import_model"]
