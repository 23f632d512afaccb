"""oxla: a Python-native ML compiler stack on StableHLO, MLIR and IREE.

Layers, each importing only those before it:
    oxla.ir           the MLIR bindings, the one context, parse/print/verify
    oxla.transforms   Python passes, the pass registry, mixed pipelines
    oxla.tools        console programs (oxla-opt, ...)
"""

__version__ = "0.1.0"
