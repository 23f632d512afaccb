"""StableHLO in Python: an op class and a builder for every op of the specification.

Importing this package registers the op classes, so StableHLO ops parsed or
walked afterwards come back as them (`AddOp`, `DotGeneralOp`, ...), with
properties for operands, attributes (as Python values) and regions. Each op
also has a snake_case builder (`add`, `dot_general`, `if_`, ...) that infers
result types, builds regions from Python callables and verifies the op:

    from oxla import ir
    from oxla.dialects import stablehlo as shlo

    with ir.InsertionPoint(block):
        y = shlo.add(x, x)

Families follow the specification's chapters, one module each.
"""

from oxla.dialects.stablehlo import attributes, types
from oxla.dialects.stablehlo._core import BUILDERS, CLASSES, OPS, OpSpec, StableHLOOp
from oxla.dialects.stablehlo.attributes import (
    ChannelHandle, ConvDimensionNumbers, DotDimensionNumbers, GatherDimensionNumbers, OutputOperandAlias,
    ScatterDimensionNumbers)
from oxla.dialects.stablehlo.types import TensorSpec, element_type, tensor_type

from oxla.dialects.stablehlo.elementwise import *  # noqa: F401,F403
from oxla.dialects.stablehlo.reduction import *  # noqa: F401,F403
from oxla.dialects.stablehlo.control_flow import *  # noqa: F401,F403
from oxla.dialects.stablehlo.linalg import *  # noqa: F401,F403
from oxla.dialects.stablehlo.indexing import *  # noqa: F401,F403
from oxla.dialects.stablehlo.data_movement import *  # noqa: F401,F403
from oxla.dialects.stablehlo.dynamism import *  # noqa: F401,F403
from oxla.dialects.stablehlo.distribution import *  # noqa: F401,F403
from oxla.dialects.stablehlo.extensibility import *  # noqa: F401,F403
from oxla.dialects.stablehlo.quantization import *  # noqa: F401,F403
from oxla.dialects.stablehlo.random import *  # noqa: F401,F403
