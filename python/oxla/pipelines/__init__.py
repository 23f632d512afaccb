"""Phase pipelines: StableHLO to a VM flatbuffer for llvm-cpu, vulkan-spirv, cuda or rocm."""

from oxla.pipelines.compiler import Artifact, CodegenPassesWarning, CompileError, FunctionSignature, compile, signatures
from oxla.pipelines.phases import PHASES
from oxla.pipelines.targets import TARGETS, Target

__all__ = ["Artifact", "CodegenPassesWarning", "CompileError", "FunctionSignature", "PHASES", "TARGETS", "Target", "compile", "signatures"]
