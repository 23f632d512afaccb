"""The program builder: StableHLO functions written as numpy-style Python, and `jit`.

- `Tensor[4, 8, "f32"]` types a parameter; Tensor values support + - * / // % **
  @, comparisons, & | ^ ~ << >>, indexing and slicing, .T, reshape, astype,
  and reductions, with numpy broadcasting and the dtype promotion rules in
  `oxla.builder.promotion`.
- `Program` collects functions (`@program.function`) into one module; a
  function called from another's body becomes `func.call`.
- `jit` traces a function per argument signature, compiles and runs it.
- `oxla.builder.functions` holds the numpy-style functions (where, exp,
  softmax, concatenate, take, ...) that the Tensor methods use.
"""

from oxla.builder.tensor import Tensor
from oxla.builder import functions
from oxla.builder.functions import (  # noqa: F401
    arange, as_tensor, astype, broadcast_to, clip, concatenate, constant, expand_dims, full, matmul, maximum,
    minimum, ones, relu, reshape, softmax, squeeze, stack, take, transpose, where, zeros)
from oxla.builder.program import Function, Program
from oxla.builder.jit import Jitted, jit

__all__ = ["Tensor", "Program", "Function", "jit", "Jitted", "functions", "arange", "as_tensor", "astype",
           "broadcast_to", "clip", "concatenate", "constant", "expand_dims", "full", "matmul", "maximum", "minimum",
           "ones", "relu", "reshape", "softmax", "squeeze", "stack", "take", "transpose", "where", "zeros"]
