"""An FFT axis's Stockham stages as one CPU dispatch, each stage a butterfly (oxla-legalize-fft on llvm-cpu).

fft.py's stages are element-wise expressions, one dispatch and one pass over the data each, in which every
output element sums radix x 2 products of the stage's inputs with a table (32 multiply-adds per complex
result of a radix-4 stage). Where every device target is an llvm-cpu one, an axis's stages run in this
kernel instead: the same stages in the same order, each as butterflies, the inputs times their twiddle
factors, then the radix's DFT by sums and differences (radix 2 and 4; about 7 operations per complex result
of radix 4) or, for an odd prime p, from the sums and differences of the inputs k and p - k (cosines and
sines are symmetric), so that each is computed once for all outputs.

The data are planes, [lead, n, 2, trail]: the axis (n), then the real and the imaginary part of a run of
`trail` elements, which the vectors run along (the transforms are independent along it). A workgroup takes
a block of the run of one or more lead indices; the stages alternate between two planes on its stack
where they fit, else through scratch results, and the last one writes the result. The first stage reads
the source as it comes: planes, planes with the parts first ([lead, 2, n, trail]), complex values as pairs
of reals ([lead, n, trail, 2], taken apart in registers), or real values ([lead, n, trail]); the last
writes planes, planes with the parts first (whole rows) or pairs (put together in registers: a complex
result needs no pass of its own to join its parts); rows that end within a vector are read and written
through a mask only where a vector crosses a row's end. The four-step method's two halves and the transpose
between them run as one kernel where a row fits a workgroup's stack (fused_four_step_executable; n1 padded
to whole vectors, and for an RFFT only the leading terms written), and an RFFT's halves are taken apart by a
kernel of their own (halves_executable).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from oxla.transforms.kernel_text import FOOTER, executable_header

SOURCES = ("planes", "parts_first", "pairs", "real")
RESULTS = ("planes", "parts_first", "pairs")
_BLOCK_VECTORS = 4  # vectors of a run a workgroup takes at most
_LOCAL_BYTES = 24576  # the most scratch a workgroup keeps on its stack (IREE's CPU limit is 32 KiB)
_WORKGROUP_ELEMENTS = 4096  # complex elements a workgroup takes at most where it takes several lead indices


class Kernel(NamedTuple):
    """What a stages kernel does: transforms of length n over lead x `run` positions of the source's rows
    of `trail` into the result's of `result_trail` (a row shorter than the run is read as zeros past its
    end and written up to it), in vectors of `width` f32, by stages of `radices`, the exponent's `sign`,
    the last stage's results times `scale`; its source one of SOURCES; `table` the twiddle table's length
    (see `stages`); where `twiddled`, the results (k, t) also times the table's last n x 2 x run entries
    (cos then sin of each k's row); `result` its layout, one of RESULTS; `kept` how many of the result's
    n rows are written (0: all), the leading ones (an RFFT's terms up to half the length)."""

    lead: int
    n: int
    trail: int
    result_trail: int
    run: int
    width: int
    radices: list[int]
    sign: int
    scale: float
    source: str
    table: int
    twiddled: bool
    result: str
    kept: int = 0

    def result_rows(self) -> int:
        """The rows of the result: the `kept` leading ones, or all n."""
        return self.kept or self.n

    def block(self) -> int:
        """The positions of the run one workgroup takes: the most vectors, up to _BLOCK_VECTORS, that divide
        it and whose planes fit the workgroup's own scratch (`local`), or where not even one vector's do, the
        most that divide it (the planes of one vector of a long transform are rows far apart, which share
        cache sets: fft2 of c64[8,256,256] along its rows 0.58 ms in blocks of 4 vectors, 0.98 in blocks of
        one)."""
        vectors = self.run // self.width
        divisors = [d for d in range(1, _BLOCK_VECTORS + 1) if vectors % d == 0]
        fits = [d for d in divisors if self._fits(d * self.width)]
        return self.width * max(fits or divisors)

    def _fits(self, block: int) -> bool:
        """Whether two planes of `block` positions fit _LOCAL_BYTES."""
        return 2 * self.n * 2 * block * 4 <= _LOCAL_BYTES

    def local(self) -> bool:
        """Whether the stages alternate between two planes of the workgroup's own (on its stack, in cache)."""
        return self._fits(self.block())

    def scratch_results(self) -> int:
        """How many scratch results the stages alternate through where their planes are not `local`: one
        and the result's memory (taken as planes, which keeps each position of a row where it was, so that
        workgroups of other blocks do not meet), or two for a result of pairs (whose positions move)."""
        if len(self.radices) == 1 or self.local():
            return 0
        return 2 if self.result == "pairs" else 1

    def symbol(self) -> str:
        """The kernel's name: what sets it apart from others of its module."""
        twiddled = "_twiddled" if self.twiddled else ""
        scaled = "" if self.scale == 1.0 else f"_by{round(1 / self.scale)}"
        direction = "inverse" if self.sign > 0 else "forward"
        sizes = "x".join(map(str, (self.lead, self.n, self.trail, self.run, self.result_trail)))
        kept = f"_kept{self.kept}" if self.kept else ""
        return f"oxla_f32_fft_{self.source}_to_{self.result}_{direction}{scaled}{twiddled}{kept}_{sizes}"


class Stage(NamedTuple):
    """A stage: its radix, the transforms' length before it (span), and where its twiddles start in the
    table (None for span 1, whose twiddles are all 1)."""

    radix: int
    span: int
    offset: int | None


def stages(radices: list[int], start: int = 0) -> list[Stage]:
    """The stages of `radices` in order, with the table's layout from `start`: each twiddled stage's factors
    w^(k s) for s < span, 0 < k < radix, as (cos, sin) pairs in that order."""
    out, span, offset = [], 1, start
    for radix in radices:
        out.append(Stage(radix, span, offset if span > 1 else None))
        if span > 1:
            offset += span * (radix - 1) * 2
        span *= radix
    return out


def vector_width(trail: int, lanes: int) -> tuple[int, int]:
    """(vector width, run length): the widest power of two up to `lanes` dividing the run, where that is
    at least 8 (or lanes); else the run padded to whole vectors of lanes."""
    width = min(lanes, trail & -trail)
    if width >= min(8, lanes):
        return width, trail
    return lanes, padded(trail, lanes)


def padded(n: int, width: int) -> int:
    """n rounded up to whole vectors of `width`."""
    return -(-n // width) * width


def _leads_together(lead: int, elements: int) -> int:
    """How many lead indices a workgroup takes: the most, dividing `lead`, whose `elements` each add up to
    at most _WORKGROUP_ELEMENTS (so that small transforms do not pay a workgroup each)."""
    return max(d for d in range(1, lead + 1) if lead % d == 0 and (d == 1 or d * elements <= _WORKGROUP_ELEMENTS))


def _f32(value: float) -> str:
    """An f32 constant's text, exact."""
    return repr(float(np.float32(value)))


class _Lines:
    """The kernel's lines, with fresh SSA names, and its constants pooled at the function's top."""

    def __init__(self, width: int):
        self.width = width
        self.vector = f"vector<{width}xf32>"
        self.lines: list[str] = []
        self.constants: dict[str, str] = {}
        self.count = 0

    def value(self, text: str) -> str:
        """A line defining a fresh value as `text`; its name."""
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(f"{name} = {text}")
        return name

    def index(self, n: int) -> str:
        """The index constant n."""
        return self._constant(f"%i{n}", f"arith.constant {n} : index")

    def splat(self, x: float) -> str:
        """A vector of the f32 x."""
        text = _f32(x)
        return self._constant(f"%k{len(self.constants)}", f"arith.constant dense<{text}> : {self.vector}", text)

    def _constant(self, name: str, text: str, key: str | None = None) -> str:
        key = key or name
        if key not in self.constants:
            self.constants[key] = name
            self.lines.insert(0, f"{name} = {text}")
        return self.constants[key]

    def parts(self, pairs: str) -> tuple[str, str]:
        """The even and odd lanes (real and imaginary parts) of a vector of `width` pairs."""
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(f"{name}:2 = vector.deinterleave {pairs} : vector<{2 * self.width}xf32> -> {self.vector}")
        return f"{name}#0", f"{name}#1"

    def op(self, name: str, *operands: str) -> str:
        """An element-wise vector op's result."""
        return self.value(f"{name} {', '.join(operands)} : {self.vector}")

    def add(self, x, y):
        return tuple(self.op("arith.addf", a, b) for a, b in zip(x, y))

    def sub(self, x, y):
        return tuple(self.op("arith.subf", a, b) for a, b in zip(x, y))

    def scaled(self, x, factor: str):
        return tuple(self.op("arith.mulf", a, factor) for a in x)

    def twiddled(self, x, cos: str, sin: str):
        """x (re, im) times cos + i sin."""
        re = self.op("vector.fma", x[0], cos, self.op("arith.negf", self.op("arith.mulf", x[1], sin)))
        return re, self.op("vector.fma", x[0], sin, self.op("arith.mulf", x[1], cos))

    def plus_i(self, x, y, sign: int):
        """x + sign * i * y."""
        if sign > 0:
            return self.op("arith.subf", x[0], y[1]), self.op("arith.addf", x[1], y[0])
        return self.op("arith.addf", x[0], y[1]), self.op("arith.subf", x[1], y[0])

    def combination(self, first, terms):
        """first (or nothing) plus the sum of value * coefficient over terms (value, f32), per part."""
        parts = []
        for p in range(2):
            total = None if first is None else first[p]
            for value, coefficient in terms:
                factor = self.splat(coefficient)
                total = (self.op("arith.mulf", value[p], factor) if total is None
                         else self.op("vector.fma", value[p], factor, total))
            parts.append(total)
        return tuple(parts)


def _butterfly(lines: _Lines, x: list, sign: int) -> list:
    """The DFT of the complex values x (radix len(x)) with the exponent's `sign`."""
    p = len(x)
    if p == 2:
        return [lines.add(x[0], x[1]), lines.sub(x[0], x[1])]
    if p == 4:
        a, b = lines.add(x[0], x[2]), lines.sub(x[0], x[2])
        c, d = lines.add(x[1], x[3]), lines.sub(x[1], x[3])
        return [lines.add(a, c), lines.plus_i(b, d, sign), lines.sub(a, c), lines.plus_i(b, d, -sign)]
    half = (p - 1) // 2
    sums = [lines.add(x[j], x[p - j]) for j in range(1, half + 1)]
    differences = [lines.sub(x[j], x[p - j]) for j in range(1, half + 1)]
    y = [None] * p
    y[0] = x[0]
    for s in sums:
        y[0] = lines.add(y[0], s)
    for k in range(1, half + 1):
        angles = [2 * math.pi * j * k / p for j in range(1, half + 1)]
        even = lines.combination(x[0], list(zip(sums, np.cos(angles))))
        odd = lines.combination(None, list(zip(differences, np.sin(angles))))
        y[k], y[p - k] = lines.plus_i(even, odd, sign), lines.plus_i(even, odd, -sign)
    return y


class _Memref(NamedTuple):
    """A buffer a stage reads or writes: its name, type and layout (one of SOURCES; "parts_first" for a result
    in whole rows), whether it is the workgroup's own scratch ([n, 2, block], indexed by the position in the
    block) rather than a binding ([lead, ...], by the lead index and the position in the run), and whether
    its rows end within a vector (read and written through masks)."""

    name: str
    type: str
    layout: str = "planes"
    local: bool = False
    masked: bool = False


def _at(memref: _Memref, row: str, part: str | None, position: str) -> str:
    """The indices of element `position` of `row` (its `part`, in layouts with parts) in `memref`."""
    lead = "" if memref.local else "%l, "
    if memref.layout in ("real", "pairs"):
        return f"{lead}{row}, {position}"
    if memref.layout == "parts_first":
        return f"{lead}{part}, {row}, {position}"
    return f"{lead}{row}, {part}, {position}"


def _pair_position(lines: _Lines, memref: _Memref, positions: tuple[str, str]) -> str:
    """The position in `memref`'s rows of the element at `positions`: twice it for pairs."""
    position = positions[0] if memref.local else positions[1]
    return lines.value(f"arith.muli {position}, %i2 : index") if memref.layout == "pairs" else position


def _read(lines: _Lines, memref: _Memref, at: str, vector: str) -> str:
    """A vector read at `at`, through a mask where the memref's rows end within vectors."""
    if memref.masked:
        return lines.value(f"vector.transfer_read {memref.name}[{at}], %pad : {memref.type}, {vector}")
    return lines.value(f"vector.load {memref.name}[{at}] : {memref.type}, {vector}")


def _write(lines: _Lines, memref: _Memref, at: str, value: str, vector: str) -> None:
    """Lines writing a vector at `at` (see _read)."""
    if memref.masked:
        lines.lines.append(f"vector.transfer_write {value}, {memref.name}[{at}] : {vector}, {memref.type}")
    else:
        lines.lines.append(f"vector.store {value}, {memref.name}[{at}] : {memref.type}, {vector}")


def _load(lines: _Lines, memref: _Memref, row: str, positions: tuple[str, str]):
    """The complex vector at `row` of `memref` from run position (in the block, in the run) `positions`."""
    position = _pair_position(lines, memref, positions)
    if memref.layout == "real":
        return _read(lines, memref, _at(memref, row, None, position), lines.vector), lines.splat(0.0)
    if memref.layout == "pairs":
        wide = f"vector<{2 * lines.width}xf32>"
        return lines.parts(_read(lines, memref, _at(memref, row, None, position), wide))
    return tuple(_read(lines, memref, _at(memref, row, lines.index(p), position), lines.vector) for p in range(2))


def _store(lines: _Lines, memref: _Memref, row: str, positions: tuple[str, str], value) -> None:
    """Lines storing the complex vector `value` at `row` of `memref` (see _load)."""
    position = _pair_position(lines, memref, positions)
    if memref.layout == "pairs":
        wide = f"vector<{2 * lines.width}xf32>"
        both = lines.value(f"vector.interleave {value[0]}, {value[1]} : {lines.vector} -> {wide}")
        _write(lines, memref, _at(memref, row, None, position), both, wide)
        return
    for p in range(2):
        _write(lines, memref, _at(memref, row, lines.index(p), position), value[p], lines.vector)


def _affine(lines: _Lines, x: str, factor: int, plus: str) -> str:
    """x * factor + plus, of indices."""
    product = lines.value(f"arith.muli {x}, {lines.index(factor)} : index")
    return lines.value(f"arith.addi {product}, {plus} : index")


def _row_factors(lines: _Lines, table: str, offset: int, trail: int, row: str, position: str) -> list[str]:
    """The vectors of cos and sin of result `row` from run position `position` in the table's factors at
    `offset` ([n, 2, trail])."""
    first = lines.value(f"arith.addi {_affine(lines, row, 2 * trail, lines.index(offset))}, {position} : index")
    second = lines.value(f"arith.addi {first}, {lines.index(trail)} : index")
    return [lines.value(f"vector.load %table[{at}] : {table}, {lines.vector}") for at in (first, second)]


def _stage(lines: _Lines, q: int, stage: Stage, kernel: Kernel, source: _Memref, target: _Memref, table: str,
           final: bool, end: str = "%block") -> None:
    """Stage q's loops: for each group g and position s in the span, the radix inputs at rows
    k (n / radix) + g span + s, twiddled by w^(k s), w = exp(sign 2 pi i / (radix span)), through the
    butterfly into rows g radix span + k span + s, at the block's positions up to `end`; the `final`
    stage's results times the kernel's scale and, where it is twiddled, the table's factors of each
    result."""
    radix, span, offset = stage
    n, vector = kernel.n, lines.vector
    groups = n // (radix * span)
    lines.lines += [f"scf.for %g{q} = %i0 to {lines.index(groups)} step %i1 {{",
                    f"scf.for %s{q} = %i0 to {lines.index(span)} step %i1 {{"]
    base_in = _affine(lines, f"%g{q}", span, f"%s{q}")
    base_out = _affine(lines, f"%g{q}", radix * span, f"%s{q}")
    rows_in = [base_in] + [lines.value(f"arith.addi {base_in}, {lines.index(k * groups * span)} : index")
                           for k in range(1, radix)]
    rows_out = [base_out] + [lines.value(f"arith.addi {base_out}, {lines.index(k * span)} : index")
                             for k in range(1, radix)]
    factors = []
    if offset is not None:
        first = _affine(lines, f"%s{q}", 2 * (radix - 1), lines.index(offset))
        for k in range(1, radix):
            pair = []
            for p in range(2):
                at = lines.value(f"arith.addi {first}, {lines.index(2 * (k - 1) + p)} : index")
                scalar = lines.value(f"memref.load %table[{at}] : {table}")
                pair.append(lines.value(f"vector.broadcast {scalar} : f32 to {vector}"))
            factors.append(pair)
    lines.lines.append(f"scf.for %e{q} = %i0 to {end} step {lines.index(lines.width)} {{")
    positions = (f"%e{q}", lines.value(f"arith.addi %first, %e{q} : index"))
    x = _loads(lines, source, kernel.trail, rows_in, positions)
    if factors:
        x = [x[0]] + [lines.twiddled(value, *pair) for value, pair in zip(x[1:], factors)]
    y = _butterfly(lines, x, kernel.sign)
    if final and kernel.scale != 1.0:
        y = [lines.scaled(value, lines.splat(kernel.scale)) for value in y]
    if final and kernel.twiddled:
        after = kernel.table - 2 * n * kernel.run
        y = [lines.twiddled(value, *_row_factors(lines, table, after, kernel.run, row, positions[1]))
             for row, value in zip(rows_out, y)]
    if final and kernel.kept:
        for row, value in zip(rows_out, y):
            kept = lines.value(f"arith.cmpi ult, {row}, {lines.index(kernel.kept)} : index")
            lines.lines.append(f"scf.if {kept} {{")
            _stores(lines, target, kernel.result_trail, [row], positions, [value])
            lines.lines.append("}")
    else:
        _stores(lines, target, kernel.result_trail, rows_out, positions, y)
    lines.lines += ["}", "}", "}"]


def _whole(lines: _Lines, memref: _Memref, trail: int, positions: tuple[str, str]) -> str | None:
    """Where `memref`'s rows (of `trail`) end within vectors, an i1 that holds where the vector at
    `positions` lies inside its row; else None."""
    if not memref.masked or memref.local:
        return None
    end = lines.value(f"arith.addi {positions[1]}, {lines.index(lines.width)} : index")
    return lines.value(f"arith.cmpi ule, {end}, {lines.index(trail)} : index")


def _loads(lines: _Lines, source: _Memref, trail: int, rows: list[str], positions: tuple[str, str]) -> list:
    """The complex vectors at `rows` of `source`; where its rows (of `trail`) end within vectors, read
    through masks only for the vectors that cross a row's end (AVX2's masked loads were most of the
    samples of irfft2_channels' kernel of rows of 33 pairs)."""
    whole = _whole(lines, source, trail, positions)
    if whole is None:
        return [_load(lines, source, row, positions) for row in rows]
    name = f"%v{lines.count}"
    lines.count += 1
    types = ", ".join([lines.vector] * 2 * len(rows))
    lines.lines.append(f"{name}:{2 * len(rows)} = scf.if {whole} -> ({types}) {{")
    for memref, close in ((source._replace(masked=False), "} else {"), (source, "}")):
        parts = [p for row in rows for p in _load(lines, memref, row, positions)]
        lines.lines += [f"scf.yield {', '.join(parts)} : {types}", close]
    return [(f"{name}#{2 * i}", f"{name}#{2 * i + 1}") for i in range(len(rows))]


def _stores(lines: _Lines, target: _Memref, trail: int, rows: list[str], positions: tuple[str, str], values) -> None:
    """Lines storing `values` at `rows` of `target`; where its rows (of `trail`) end within vectors, through
    masks only for the vectors that cross a row's end. AVX2's masked stores (vmaskmovps) are slow on AMD
    cores: on an AVX2 Zen 3 they were most of the samples of rfft2_channels' rows of 33, whose kernel took
    1.74 ms with every store masked and 1.18 ms so (`tools.bench.dispatches`)."""
    whole = _whole(lines, target, trail, positions)
    if whole is not None:
        lines.lines.append(f"scf.if {whole} {{")
        for row, value in zip(rows, values):
            _store(lines, target._replace(masked=False), row, positions, value)
        lines.lines.append("} else {")
    for row, value in zip(rows, values):
        _store(lines, target, row, positions, value)
    if whole is not None:
        lines.lines.append("}")


def _planes(kernel: Kernel, name: str, trail: int, layout: str = "planes", rows: int = 0) -> _Memref:
    """A binding of the kernel's lead x n transforms in `layout` (SOURCES), its rows `trail` long (`rows` of
    them: n, or the result's)."""
    n = rows or kernel.n
    dims = {"planes": [n, 2, trail], "parts_first": [2, n, trail], "pairs": [n, 2 * trail], "real": [n, trail]}[layout]
    memref = f"memref<{'x'.join(map(str, [kernel.lead, *dims]))}xf32>"
    return _Memref(name, memref, layout, masked=trail % kernel.width != 0)


def stages_executable(symbol: str, kernel: Kernel) -> str:
    """The kernel's executable (see Kernel). Bindings: the source, the table, the result and its
    Kernel.scratch_results."""
    assert not kernel.kept, "only the fused kernel leaves result rows out"
    n, block = kernel.n, kernel.block()
    source = _planes(kernel, "%in", kernel.trail, kernel.source)
    result = _planes(kernel, "%out", kernel.result_trail, kernel.result)
    table = f"memref<{kernel.table}xf32>"
    bindings = [("in", source.type), ("table", table), ("out", result.type)]
    lines = _Lines(kernel.width)
    lines.index(0), lines.index(1), lines.index(2)
    together = _leads_together(kernel.lead, n * block)
    blocks = kernel.run // block
    lines.lines += [f"%g = arith.divui %b, {lines.index(blocks)} : index",
                    f"%r = arith.remui %b, {lines.index(blocks)} : index",
                    f"%block = arith.constant {block} : index",
                    "%first = arith.muli %r, %block : index",
                    f"%lead0 = arith.muli %g, {lines.index(together)} : index",
                    f"%lead1 = arith.addi %lead0, {lines.index(together)} : index",
                    "%pad = arith.constant 0.0 : f32"]
    if kernel.local():
        buffers = [_Memref(f"%scratch{i}", f"memref<{n}x2x{block}xf32>", local=True) for i in range(2)]
        lines.lines += [f"{m.name} = memref.alloca() : {m.type}" for m in buffers]
    else:
        buffers = [_planes(kernel, f"%scratch{i}", kernel.run) for i in range(kernel.scratch_results())]
        bindings += [(m.name[1:], m.type) for m in buffers]
        if len(buffers) == 1:  # and the result's memory, as planes until the last stage
            buffers.append(result if kernel.result == "planes" else _planes(kernel, "%out_planes", kernel.result_trail))
    lines.lines.append("scf.for %l = %lead0 to %lead1 step %i1 {")
    plan = stages(kernel.radices)
    for q, stage in enumerate(plan):
        final = q == len(plan) - 1
        target = result if final else buffers[(len(plan) - 2 - q) % 2]
        _stage(lines, q, stage, kernel, source, target, table, final)
        source = target
    lines.lines.append("}")
    views = [f"{m.name} = stream.binding.subspan %out_binding[%c0] : !stream.binding -> {m.type}"
             for m in buffers if m.name == "%out_planes"]
    return "\n".join([*executable_header(symbol, kernel.lead // together * blocks, bindings), *views,
                      *lines.lines, *FOOTER])


# An RFFT of even length N transforms its reals as N/2 complex values z (fft.py's _real_forward) and takes
# the spectra of the even and odd elements apart after: X[k] = E + t[k] O with E, O = (A +- B) / 2,
# A = Z[k], B = conj(Z[(N/2 - k) mod N/2]) and t = -i w^k (w = exp(-2 pi i / N)); an IRFFT joins them
# before its transform, the same with A = X[k], B = conj(X[N/2 - k]) and t = i w^-k. As element-wise
# StableHLO the mirrored read is a reverse, which IREE's code takes a lane at a time (rfft of f32[64,1024]:
# 40 of its 100 us); here it is a vector read backwards and reversed in registers.
class Halves(NamedTuple):
    """The separation (forward) or joining (inverse) of an RFFT's halves over lead rows of half = N/2 terms,
    in vectors of `width` f32. Forward: from Z as [lead, 2, half] planes to X's half + 1 terms as pairs
    [lead, 2 (half + 1)]; inverse: from X's half + 1 terms as pairs, or as [lead, 2, half + 1] planes where
    `planes`, to Z as [lead, 2, half] planes. The table is t / 2 as [2, half] (real, imaginary parts)."""

    lead: int
    half: int
    width: int
    inverse: bool
    planes: bool = False

    def symbol(self) -> str:
        """The kernel's name: what sets it apart from others of its module."""
        kind = "join" if self.inverse else "separate"
        source = "_planes" if self.planes else ""
        return f"oxla_f32_rfft_{kind}{source}_{self.lead}x{self.half}"


def _reversed(lines: _Lines, vector: str) -> str:
    """The lanes of `vector` in reverse order."""
    order = ", ".join(str(i) for i in range(lines.width - 1, -1, -1))
    return lines.value(f"vector.shuffle {vector}, {vector} [{order}] : {lines.vector}, {lines.vector}")


def _pairs_read(lines: _Lines, memref: str, start: str):
    """The (real, imaginary) vectors of the `width` pairs of row %l of `memref` from pair `start`."""
    at = lines.value(f"arith.muli {start}, %i2 : index")
    wide = f"vector<{2 * lines.width}xf32>"
    return lines.parts(lines.value(f"vector.load %in[%l, {at}] : {memref}, {wide}"))


def _halves_step(lines: _Lines, kernel: Halves, types: dict, k0: str, first: bool) -> None:
    """Lines computing and storing the `width` results from term k0 (`first`: k0 is 0, whose mirror wraps
    around in a forward separation and whose imaginary inputs are left out in an inverse one)."""
    w, half = lines.width, kernel.half
    start = lines.value(f"arith.subi {lines.index(half - w + 1)}, {k0} : index")  # the mirror's first term
    if kernel.inverse and not kernel.planes:
        a, mirror = _pairs_read(lines, types["in"], k0), _pairs_read(lines, types["in"], start)
        m = tuple(_reversed(lines, v) for v in mirror)
    else:
        def load(p: int, at: str) -> str:
            return lines.value(f"vector.load %in[%l, {lines.index(p)}, {at}] : {types['in']}, {lines.vector}")

        a = tuple(load(p, k0) for p in range(2))
        if first and not kernel.inverse:  # Z[0], then Z[half - 1], ..., Z[half - w + 1]
            order = ", ".join(["0"] + [str(w + i) for i in range(w - 1)])
            tail = [_reversed(lines, load(p, lines.index(half - w))) for p in range(2)]
            m = tuple(lines.value(f"vector.shuffle {a[p]}, {tail[p]} [{order}] : {lines.vector}, {lines.vector}")
                      for p in range(2))
        else:
            m = tuple(_reversed(lines, load(p, start)) for p in range(2))
    if first and kernel.inverse:  # Im X[0] and Im X[half]
        a = (a[0], lines.value(f"arith.select %lane0, {lines.splat(0.0)}, {a[1]} : vector<{w}xi1>, {lines.vector}"))
        m = (m[0], lines.value(f"arith.select %lane0, {lines.splat(0.0)}, {m[1]} : vector<{w}xi1>, {lines.vector}"))
    # B = conj(m): E = (A + B) / 2, and A - B, whose half the table's t / 2 brings in
    half_sum = lines.scaled((lines.op("arith.addf", a[0], m[0]), lines.op("arith.subf", a[1], m[1])),
                            lines.splat(0.5))
    difference = (lines.op("arith.subf", a[0], m[0]), lines.op("arith.addf", a[1], m[1]))
    t = tuple(lines.value(f"vector.load %table[{lines.index(p)}, {k0}] : {types['table']}, {lines.vector}")
              for p in range(2))
    x = lines.add(half_sum, lines.twiddled(difference, *t))
    if kernel.inverse:
        for p in range(2):
            lines.lines.append(f"vector.store {x[p]}, %out[%l, {lines.index(p)}, {k0}] : {types['out']}, {lines.vector}")
        return
    wide = f"vector<{2 * w}xf32>"
    pairs = lines.value(f"vector.interleave {x[0]}, {x[1]} : {lines.vector} -> {wide}")
    at = lines.value(f"arith.muli {k0}, %i2 : index")
    lines.lines.append(f"vector.store {pairs}, %out[%l, {at}] : {types['out']}, {wide}")


def halves_executable(symbol: str, kernel: Halves) -> str:
    """The kernel's executable (see Halves). Bindings: the source, the table, the result."""
    lead, half, w = kernel.lead, kernel.half, kernel.width
    pairs, planes = f"memref<{lead}x{2 * (half + 1)}xf32>", f"memref<{lead}x2x{half}xf32>"
    source = (f"memref<{lead}x2x{half + 1}xf32>" if kernel.planes else pairs) if kernel.inverse else planes
    types = {"in": source, "table": f"memref<2x{half}xf32>", "out": planes if kernel.inverse else pairs}
    lines = _Lines(w)
    lines.index(0), lines.index(1), lines.index(2)
    together = _leads_together(lead, half)
    lines.lines += [f"%lead0 = arith.muli %b, {lines.index(together)} : index",
                    f"%lead1 = arith.addi %lead0, {lines.index(together)} : index",
                    f"%lane0 = vector.constant_mask [1] : vector<{w}xi1>",
                    "scf.for %l = %lead0 to %lead1 step %i1 {"]
    _halves_step(lines, kernel, types, "%i0", first=True)
    lines.lines.append(f"scf.for %k = {lines.index(w)} to {lines.index(half)} step {lines.index(w)} {{")
    _halves_step(lines, kernel, types, "%k", first=False)
    lines.lines.append("}")
    if not kernel.inverse:  # X[half] = Re Z[0] - Im Z[0], real
        parts = [lines.value(f"memref.load %in[%l, {lines.index(p)}, %i0] : {planes}") for p in range(2)]
        last = lines.value(f"arith.subf {parts[0]}, {parts[1]} : f32")
        lines.lines += [f"memref.store {last}, %out[%l, {lines.index(2 * half)}] : {pairs}",
                        f"memref.store %pad, %out[%l, {lines.index(2 * half + 1)}] : {pairs}"]
    lines.lines.append("}")
    bindings = [("in", types["in"]), ("table", types["table"]), ("out", types["out"])]
    return "\n".join([*executable_header(symbol, lead // together, bindings), "%pad = arith.constant 0.0 : f32",
                      *lines.lines, *FOOTER])


# A transform along rows' contiguous elements of length n1 n2 runs by the four-step method: the stages of
# n1 along columns (vectors along the n2 of a row), twiddles, a transpose, the stages of n2 (vectors along
# the n1). Where a row's planes fit a workgroup's stack twice over, one kernel does all of it a row at a
# time, the transpose a square block of vectors at a time in registers, instead of two kernels with a
# transpose dispatch between them that each pass over all rows (`tools.bench.ops` fft_rows, c64[64,1024]:
# 0.084 ms before, 0.070-0.071 after, two runs each; rfft2_channels' 64-point rows about 0.9 -> 0.7 ms of
# dispatch time). n1 need not be whole vectors: the rows' stages run over it padded (fft_1000, 125 x 8, on
# an AVX2 Zen 3: three dispatches of 0.187 ms, one of them IREE's transpose, -> one of 0.126).
_FUSED_BYTES = 24576  # the most the two planes of a row take on a workgroup's stack


def fused_width(n1: int, n2: int, lanes: int) -> int | None:
    """The vector width of the fused four-step kernel for n1 x n2: the widest power of two up to `lanes`
    dividing n2 (the columns' stages run along n2), where that is at least 8 (or lanes) and two planes of
    n2 rows of n1 padded to whole vectors fit _FUSED_BYTES; else None."""
    width = min(lanes, n2 & -n2)
    return width if width >= min(8, lanes) and 2 * padded(n1, width) * n2 * 2 * 4 <= _FUSED_BYTES else None


def _block_transposed(lines: _Lines, vectors: list[str]) -> list[str]:
    """The `width` vectors of a square block, transposed: the blocks off the diagonal swapped, halves first,
    then quarters, down to single lanes (log2 width rounds of two-vector shuffles)."""
    w = lines.width
    rows = list(vectors)
    h = w // 2
    while h:
        low = ", ".join(str(j + w - h if j % (2 * h) >= h else j) for j in range(w))
        high = ", ".join(str(j + w if j % (2 * h) >= h else j + h) for j in range(w))
        for i in [i for i in range(w) if not i & h]:
            a, b = rows[i], rows[i + h]
            rows[i] = lines.value(f"vector.shuffle {a}, {b} [{low}] : {lines.vector}, {lines.vector}")
            rows[i + h] = lines.value(f"vector.shuffle {a}, {b} [{high}] : {lines.vector}, {lines.vector}")
        h //= 2
    return rows


def _transpose_planes(lines: _Lines, source: _Memref, target: _Memref, n1: int, n2: int) -> None:
    """Lines writing `source`'s planes [n1, 2, n2] into `target`'s [n2, 2, n1], transposed, a square block of
    vectors at a time."""
    w = lines.width
    lines.lines += [f"scf.for %ti = %i0 to {lines.index(n1)} step {lines.index(w)} {{",
                    f"scf.for %tj = %i0 to {lines.index(n2)} step {lines.index(w)} {{"]
    for p in range(2):
        block = []
        for r in range(w):
            row = lines.value(f"arith.addi %ti, {lines.index(r)} : index")
            block.append(lines.value(f"vector.load {source.name}[{row}, {lines.index(p)}, %tj] : {source.type}, "
                                     f"{lines.vector}"))
        for c, vector in enumerate(_block_transposed(lines, block)):
            row = lines.value(f"arith.addi %tj, {lines.index(c)} : index")
            lines.lines.append(f"vector.store {vector}, {target.name}[{row}, {lines.index(p)}, %ti] : {target.type}, "
                               f"{lines.vector}")
    lines.lines += ["}", "}"]


def fused_symbol(columns: Kernel, rows: Kernel) -> str:
    """The fused four-step kernel's name: what sets it apart from others of its module."""
    direction = "inverse" if rows.sign > 0 else "forward"
    scaled = "" if rows.scale == 1.0 else f"_by{round(1 / rows.scale)}"
    kept = f"_kept{rows.kept}" if rows.kept else ""
    return (f"oxla_f32_fft_fused_{columns.source}_to_{rows.result}_{direction}{scaled}{kept}_"
            f"{columns.lead}x{columns.n}x{rows.n}")


def fused_four_step_executable(symbol: str, columns: Kernel, rows: Kernel) -> str:
    """The fused four-step kernel of a row kernel `columns` (n1 along [lead, n1, n2], twiddled; its table
    the length up to the four-step's twiddles' end) and `rows` (n2 along [lead, n2, n1], in a run of n1
    padded to whole vectors; its stages' twiddles after those; its result the kernel's). Bindings: the
    source, the table, the result. Where n1 is not whole vectors, the transpose reads the columns' planes
    past their last row (zeros, or what the rows' stages of the lead index before left there): those lanes
    of the rows' stages are transforms of their own, never stored."""
    lead, n1, n2, w, run = columns.lead, columns.n, rows.n, columns.width, rows.run
    source = _planes(columns, "%in", n2, columns.source)
    result = _planes(rows, "%out", n1, rows.result, rows.result_rows())
    table = f"memref<{rows.table}xf32>"
    lines = _Lines(w)
    lines.index(0), lines.index(1), lines.index(2)
    together = _leads_together(lead, n1 * n2)
    flat = f"memref<{2 * run * n2}xf32>"
    views = {}
    for i in range(2):
        lines.lines.append(f"%flat{i} = memref.alloca() : {flat}")
        for name, (a, b) in (("columns", (run, n2)), ("rows", (n2, run))):
            memref = f"memref<{a}x2x{b}xf32>"
            lines.lines.append(f"%{name}{i} = memref.expand_shape %flat{i} [[0, 1, 2]] output_shape [{a}, 2, {b}] : "
                               f"{flat} into {memref}")
            views[name, i] = _Memref(f"%{name}{i}", memref, local=True)
    if run > n1:  # the padded rows the transpose reads, zero (and so defined) until the rows' stages write them
        zero, padding = lines.splat(0.0), views["columns", 1]
        lines.lines += [f"scf.for %zr = {lines.index(n1)} to {lines.index(run)} step %i1 {{",
                        f"scf.for %zc = %i0 to {lines.index(n2)} step {lines.index(w)} {{",
                        *(f"vector.store {zero}, {padding.name}[%zr, {lines.index(p)}, %zc] : {padding.type}, "
                          f"{lines.vector}" for p in range(2)),
                        "}", "}"]
    lines.lines += [f"%lead0 = arith.muli %b, {lines.index(together)} : index",
                    f"%lead1 = arith.addi %lead0, {lines.index(together)} : index",
                    "%first = arith.constant 0 : index",
                    "%pad = arith.constant 0.0 : f32",
                    "scf.for %l = %lead0 to %lead1 step %i1 {"]
    plan = stages(columns.radices)
    reads = source
    for q, stage in enumerate(plan):
        final = q == len(plan) - 1
        target = views["columns", 1] if final else views["columns", (len(plan) - 2 - q) % 2]
        _stage(lines, q, stage, columns, reads, target, table, final, lines.index(n2))
        reads = target
    _transpose_planes(lines, views["columns", 1], views["rows", 0], run, n2)
    later = stages(rows.radices, columns.table)
    reads = views["rows", 0]
    for q, stage in enumerate(later):
        final = q == len(later) - 1
        target = result if final else views["rows", (q + 1) % 2]
        _stage(lines, len(plan) + q, stage, rows, reads, target, table, final, lines.index(run))
        reads = target
    lines.lines.append("}")
    bindings = [("in", source.type), ("table", table), ("out", result.type)]
    return "\n".join([*executable_header(symbol, lead // together, bindings), *lines.lines, *FOOTER])
