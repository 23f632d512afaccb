"""Passes written in Python, their registry, and pipelines mixing them with native passes.

    from oxla import transforms
    transforms.run(module, "builtin.module(func.func(canonicalize), oxla-dce, cse)")
"""

from __future__ import annotations

from oxla.errors import PassFailure, PipelineError
from oxla.transforms.native import native_passes
from oxla.transforms.registry import OptionSpec, Pass, RewritePass, lookup, python_passes, register_pass
from oxla.transforms.runner import Instrumentation, PassPipeline, nested_ops

__all__ = [
    "Instrumentation",
    "OptionSpec",
    "Pass",
    "PassFailure",
    "PassPipeline",
    "PipelineError",
    "RewritePass",
    "list_passes",
    "lookup",
    "native_passes",
    "nested_ops",
    "python_passes",
    "register_pass",
    "run",
]


def run(module, pipeline: str | PassPipeline, **instrumentation) -> None:
    """Runs a textual pipeline (Python and native passes, in order) on `module` in place.

    Keyword arguments are `Instrumentation` fields, e.g. `timing=True`.
    """
    if not isinstance(pipeline, PassPipeline):
        pipeline = PassPipeline(pipeline)
    pipeline.run(module, Instrumentation(**instrumentation))


def list_passes() -> dict[str, str]:
    """Every pass a pipeline may name, Python and native, with its summary."""
    passes = {name: cls.summary() for name, cls in python_passes().items()}
    passes.update(native_passes())
    return dict(sorted(passes.items()))
