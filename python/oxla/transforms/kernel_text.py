"""MLIR text of the dispatches oxla writes itself for CPUs (oxla-llvmcpu-lapack-kernels,
oxla-llvmcpu-scalar-loops, oxla-legalize-fft's stages): the executable around a kernel's function, the
private function that dispatches it, the calls a pass makes of its kernels, and the vector width of the
module's CPU targets."""

from __future__ import annotations

import re

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.transforms.cpu_tiles import target_text

_ELEMENTS = {"f32": 4}


def cpu_lanes(module, element: str) -> int | None:
    """Elements of `element` per native vector when every device target of the module is an llvm-cpu one
    (the narrowest target's), else None."""
    targets = target_text(module).split("#hal.executable.target<")[1:]
    if not targets or element not in _ELEMENTS or not all(t.startswith('"llvm-cpu"') for t in targets):
        return None
    sizes = [re.search(r"native_vector_size = (\d+)", t) for t in targets]
    return min(int(s.group(1)) if s else 16 for s in sizes) // _ELEMENTS[element]


def executable_header(symbol: str, batch: int, bindings: list[tuple[str, str]]) -> list[str]:
    """The executable's opening lines up to the function's body: `batch` workgroups (this one %b), the
    bindings as (name, memref type), and the constants %c0, %c1."""
    arguments = ", ".join(f"%{name}_binding: !stream.binding" for name, _ in bindings)
    return [
        f"stream.executable private @{symbol} {{",
        f"stream.executable.export public @{symbol} workgroups() -> (index, index, index) {{",
        f"  %x = arith.constant {batch} : index",
        "  %one = arith.constant 1 : index",
        "  stream.return %x, %one, %one : index, index, index",
        "}",
        "builtin.module {",
        f"func.func @{symbol}({arguments}) {{",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        *(f"  %{name} = stream.binding.subspan %{name}_binding[%c0] : !stream.binding -> {memref}"
          for name, memref in bindings),
        "  %b = stream.dispatch.workgroup.id[0] : index",
    ]


FOOTER = ["  return", "}", "}", "}"]


def dispatch_caller(symbol: str, operands: list[str], results: list[str]) -> str:
    """The private function @{symbol}_call dispatching the kernel `symbol`, as MLIR text."""
    arguments = ", ".join(f"%a{i}: {t}" for i, t in enumerate(operands))
    names = ", ".join(f"%a{i}" for i in range(len(operands)))
    listed = ", ".join(results)
    returned = listed if len(results) == 1 else f"({listed})"
    values = "%r" if len(results) == 1 else ", ".join(f"%r#{i}" for i in range(len(results)))
    count = "" if len(results) == 1 else f":{len(results)}"
    return "\n".join([
        f"func.func private @{symbol}_call({arguments}) -> {returned} {{",
        f"  %r{count} = flow.dispatch @{symbol}::@{symbol}({names}) : ({', '.join(operands)}) -> {returned}",
        f"  return {values} : {listed}",
        "}",
    ])


class KernelCalls:
    """The kernels one pass's rewrites of a module call: the vector width, and the definitions (by symbol)
    made, each once however often it is called."""

    def __init__(self, lanes: int):
        self.lanes = lanes
        self.texts: dict[str, str] = {}

    def call(self, symbol: str, text, operands: list, results: list):
        """A call of kernel `symbol` (its executable from `text()`, made once) on `operands`; its results."""
        if symbol not in self.texts:
            self.texts[symbol] = text() + "\n" + dispatch_caller(symbol, [str(v.type) for v in operands],
                                                         [str(t) for t in results])
        return build.create("func.call", results, operands, callee=ir.FlatSymbolRefAttr.get(f"{symbol}_call"))

    def define(self, module) -> None:
        """Appends the kernels called to the module."""
        if self.texts:
            ir.append_definitions(module, "\n".join(self.texts.values()))
