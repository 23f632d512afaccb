"""oxla-llvmcpu-lapack-kernels: f32 and c64 Cholesky, LU, QR, triangular solves, symmetric (Hermitian)
eigenproblems and singular values (and vectors) as CPU dispatches oxla writes.

oxla-legalize-lapack-calls and oxla-legalize-triangular-solve write potrf,
getrf, geqrf, orgqr and trsm as loops of StableHLO, a trip per column (or block of rows),
and syevd and gesdd as Jacobi sweeps, a trip per round of rotations,
which IREE runs as host loops paying a command buffer, its dispatches and a
wait every trip. On llvm-cpu targets this pass, run before them in the
input legalization, gives each a dispatch oxla writes itself (an IREE
`stream.executable` in scf, vector and memref ops): one workgroup per
matrix runs the unblocked algorithm on rows, with the CPU's native vectors,
in the dispatch's result. On a 2-core Zen 4 (one thread, paired):
jnp.linalg.cholesky of f32[256,256] 1.37 -> 0.15 ms (XLA 0.30),
solve_triangular with 8 right-hand sides 0.163 -> 0.031 ms (XLA 0.063),
jnp.linalg.solve 6.05 -> 1.55 ms (XLA 0.51; JAX's loop turning pivots into
a permutation was most of the rest: oxla-llvmcpu-scalar-loops), jnp.linalg.qr
of f32[256,128] 2.72 -> 0.53 ms (XLA 0.68), jnp.linalg.eigvalsh of f32[128,128]
38.9 -> 0.51 ms (XLA 0.77; 0.37 since its QL is root-free and it sorts its
values) and of 4096 f32[3,3] 2.58 -> 1.38 ms (XLA 3.57), the singular
values of f32[256,64] 16.1 -> 0.28 ms (XLA 0.33; 0.25 since).

- Cholesky (potrf, stablehlo.cholesky) as U^T U on rows: for each row j,
  its diagonal's square root, the row right of it divided by that, and
  each later row i less the entry (j, i) times row j, from column i on;
  BLOCK rows are made so, then every row after them is updated by all of
  them in one pass. A lower factor's triangle is copied onto the upper one
  before and back after, by transposed square blocks of vectors.
- Cholesky of complex<f32> matrices (potrf, stablehlo.cholesky): the same
  steps on rows held as [re | im] halves, each later row less conj(U[j, i])
  times row j (a lower factor is U^H of a^H's upper one):
  jnp.linalg.cholesky of c64[128,128] 2.16 -> 0.11 ms (XLA 0.11).
- LU with partial pivoting (getrf), as getf2 orders the work: for each
  column j, the largest entry at or below the diagonal (the first of
  equals; a NaN only where every candidate is one) swapped to row j (whole
  rows), the column below scaled by the pivot's reciprocal (left as it is
  where the pivot is zero), and each later row less its multiplier times
  row j right of column j; by panels of BLOCK columns, whose updates reach
  the rows right of the panel in one pass. Of complex<f32> matrices the
  same panels on rows held as [re | im] halves, the pivot the first
  largest |re| + |im| (LAPACK's icamax), the column below times the
  pivot's reciprocal (formed in f64): jax.scipy.linalg.lu_factor of
  c64[128,128] 5.29 -> 0.26 ms (XLA 0.30-0.37).
- Householder QR (geqrf, as geqr2 orders the work: LAPACK's larfg
  reflector of each column, applied to the columns right of it in two
  passes over the rows, v^T A into a row of scratch, then A less tau v
  times it) and Q from its reflectors (orgqr, as org2r: the identity's
  columns, the reflectors applied last first). Of complex<f32> matrices
  (geqrf, ungqr) the same on rows of [re | im] halves: zlarfg's reflectors
  (formed in f64; where nothing is below the diagonal, one that makes a
  diagonal that is not real real), each applied as H^H = I - conj(tau) v
  v^H, and zung2r's Q: jnp.linalg.qr of c64[128,64] 6.02 -> 0.21 ms (XLA
  0.25).
- Triangular solves (trsm, stablehlo.triangular_solve, made left-sided by
  oxla.transforms.triangular_solve.solve) by substitution, a row of X at a
  time in vectors of up to the native width; complex<f32> systems on rows
  of [re | im] halves, each row times the diagonal's reciprocal (formed in
  f64). jnp.linalg.solve of c64[128,128] for 8 right-hand sides (an LU and
  two solves) 4.26 -> 0.16 ms (XLA 0.23).
- Symmetric eigenvalues and eigenvectors (syevd, whichever triangle it is
  given, made whole before): the reduction to tridiagonal form by
  reflectors from both sides in f32 (sytd2's order; rows taken ROW_GROUP at
  a time), then EISPACK's implicit QL with Wilkinson's shift on the
  tridiagonal matrix in f64, one eigenvalue at a time; its Givens rotations
  turn the rows of Q^T (the reflectors' product, made first as orgtr does),
  which become the eigenvectors; without vectors the QL steps are root-free
  (Pal, Walker and Kahan's, LAPACK's dsterf: on the subdiagonal's squares,
  one division a rotation). The eigenvalues end sorted ascending (the
  vectors with them), so no sort follows. Eigenvalues that do not converge
  in QL_STEPS steps are counted in info (LAPACK's meaning). jnp.linalg.eigh of
  f32[n,n] against XLA (one thread, Zen 4): n = 128 0.78 ms (XLA 1.14),
  256 4.35 (4.04), 512 27.1 (20.7), 1024 222 (137); at 512 the rotations
  take about half of it, bound by memory (each QL step passes over the
  rows it turns), the reduction a fifth.
- Eigenproblems of complex<f32> Hermitian matrices (heevd) the same way on
  rows held as [re | im] halves: the reduction to real tridiagonal form by
  complex reflectors (chetd2's: zlarfg's, each making the subdiagonal entry
  real, applied from both sides as A - v w^H - w v^H), the same QL, its
  rotations turning the rows of Q^H into the eigenvectors' conjugates.
  jnp.linalg.eigh of c64[64,64] on an AVX2 Zen 3 1.08 -> 0.27 ms (XLA
  0.51-0.76), eigvalsh 0.44 -> 0.17 ms (XLA 0.48-0.49), where the f32
  kernel ran on the real
  [[re h, -im h], [im h, re h]] (twice the side: twice the reduction's
  flops, four times the rotations, and a selection of n eigenvectors from
  its 2n where an eigenvalue repeats).
- Singular values without vectors (gesdd in mode 'N'; a wide matrix
  transposed first): the reduction to upper bidiagonal form B by
  reflectors from both sides in f32 (gebd2's order: each column's as the
  QR kernel makes and applies it, then its row's), then the eigenvalues of
  the tridiagonal B^T B by the same root-free QL in f64, whose square roots
  are the singular values (sorted descending at the end). Forming B^T B
  squares the condition number, but in f64 the error it adds to a singular
  value s is about 1e-16 |B|^2 / s, far below the reduction's f32 rounding
  for any s above 1e-8 |B|. Those of complex<f32> matrices the same way on
  rows held as [re | im] halves, the reduction by complex reflectors
  (zgebd2's: each column's applied as H^H from the left, each row's from
  the right, both making their entry of B real):
  jnp.linalg.svd(compute_uv=False) of c64[128,64] on an AVX2 Zen 3 0.86 ->
  0.34 ms (XLA 0.50), where the f32 kernel ran on the real [[re a, -im a], [im a, re a]]
  (79.0 ms before either, as Jacobi loops); over random c64 matrices (sizes
  1-69, scales 1e-3 to 1e3, rank deficient, repeated columns) within
  1.6e-7 of the largest value of LAPACK's f64 values, XLA's (cgesdd) within
  6.1e-7, the embedding's within 1.1e-6.
- Singular values and vectors (gesdd in modes 'S' and 'A': jnp.linalg.svd,
  pinv, lstsq): lapack.gesdd's one-sided Jacobi (Hestenes) on the rows of
  a^H (of a where it is wide) in f64, its sweeps one dispatch: every pair of
  rows once a sweep, in the rounds of disjoint pairs of the round-robin
  schedule, four pairs at a time (their norms and products in one pass, the
  four rotations computed as the lanes of one vector, and where a pair is
  not orthogonal to f32's eps, the rotation that makes it so applied to it
  and to the rotations' product); sweeps until one rotates
  nothing (or lapack.MAX_SWEEPS). Where the rows are at least twice as long as
  there are rows, the sweeps turn R^H of the QR kernel's a = Q R instead
  (short rows), and Q takes them back. lapack.gesdd makes the vectors
  from the rows as after its loops, completing them through the QR kernels.
  jnp.linalg.pinv of f32[256,64]: 22.6 -> 0.89 ms (XLA 0.68), the sweeps
  0.54 ms of it (0.89 a pair at a time in cyclic order, where each pair's
  sums, then its rotation's square roots and divisions, waited on the one
  before; 0.73 two pairs at a time, their rotations' six scalar square
  roots and divisions a pair keeping the divider busy). The rows are swept
  preconditioned: turned first by W0, the eigenvectors of their Gram matrix
  x x^T from the eigen kernel (in f32, then made orthogonal in f64 by a
  Newton-Schulz step), which leaves them nearly orthogonal, so the sweeps
  rotate little and stop after one or two where they took eight or nine;
  the rotations given back are the sweeps' times W0. pinv of f32[256,64]
  on an AVX2 Zen 3 1.10 -> 0.80 ms (XLA 0.89-0.94 in that run).
- Singular values and vectors of complex<f32> matrices (gesdd in modes 'S'
  and 'A') the same way, the rows complex<f64> held as [re | im] halves:
  each pair's product g = conj(r_i) . r_j is made real by turning r_j by
  the phase conj(g) / |g|, then rotated as a real pair of product |g|; the
  preconditioner is the Hermitian kernel's, and the rows are swept as they
  are (no QR: with a sweep or two it cost more than it saved); the vectors
  are completed through the complex QR kernels. jnp.linalg.pinv of
  c64[128,64]: 28.6 -> 5.2 ms (XLA 0.92) through the f32 kernels on the
  real [[re a, -im a], [im a, re a]] (2n rows, every other vector of it
  taken, or a Gram-Schmidt selection of n from 2n where values repeat),
  2.04 -> 1.28 ms on an AVX2 Zen 3 (XLA 1.19-1.39 in that run) since; over random c64
  matrices (sizes 1-40, rank deficient, repeated values, both modes) |a -
  U S V^H| within 1.3e-7 of |a|, U and V within 4.8e-7 of unitary, the
  values within 6.1e-8; XLA's (cgesdd) 3.4e-7, 1.3e-6, 7.5e-7.

Matrix rows are padded with zeros to a whole number of vectors (a
Cholesky's padding gets ones on its diagonal), so the vector loops need no
tails; a row's loop starts at the vector holding its first column, and what
that writes left of it is either a triangle neither the kernel nor the
result reads (Cholesky) or masked (LU). The kernels also give info, so no
reduction over the matrix finds it. The results keep the conventions of the
loops they replace (lapack.py: the other triangle, the pivots, info).
f64 and complex<f64> matrices keep the loops, and so do matrices of more
than MAX_ROWS rows or columns (not
measured; 2048 ran at 0.62x XLA's Cholesky).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from oxla import ir
from oxla.dialects import stablehlo_build as build
from oxla.transforms import lapack, triangular_solve
from oxla.transforms.kernel_text import FOOTER, KernelCalls, cpu_lanes, executable_header
from oxla.transforms.registry import Pass, register_pass

# The largest matrix side the kernels take. One thread, Zen 4, against the loops and XLA: Cholesky of
# f32[1024,1024] 7.3 ms (loops 28.4, XLA 14.6), of f32[2048,2048] 62 ms (XLA 99); LU solves 26 ms (loops 68,
# XLA 18) and 213 ms (XLA 110).
MAX_ROWS = 2048
# Rows of U the Cholesky kernel makes, and columns the LU kernel factors, before the rows after them are
# updated by all of them in one pass.
BLOCK = 4
F32_EPS = 2.0 ** -23


def _padded(n: int, lanes: int) -> int:
    """n rounded up to a whole number of vectors."""
    return -(-n // lanes) * lanes


def _copy(rows: str, width: str, memref: str, vector: str) -> list[str]:
    """Lines copying matrix %b of %in to %out, `rows` rows of `width` elements, a vector at a time."""
    return [
        f"  scf.for %i = %c0 to {rows} step %c1 {{",
        f"    scf.for %c = %c0 to {width} step %lanes {{",
        f"      %v = vector.load %in[%b, %i, %c] : {memref}, {vector}",
        f"      vector.store %v, %out[%b, %i, %c] : {memref}, {vector}",
        "    }",
        "  }",
    ]


class _Layout(NamedTuple):
    """The types a kernel's lines use: the matrices' memref, and vectors of `lanes` elements (f32 unless
    said), indices, i1."""

    memref: str
    lanes: int
    element: str = "f32"

    @property
    def vector(self) -> str:
        return f"vector<{self.lanes}x{self.element}>"

    @property
    def indices(self) -> str:
        return f"vector<{self.lanes}xindex>"

    @property
    def mask(self) -> str:
        return f"vector<{self.lanes}xi1>"


def _vector_start(name: str, column: str) -> list[str]:
    """Lines defining %{name}, the first column of the vector holding `column`."""
    return [f"%{name}_rest = arith.remui {column}, %lanes : index",
            f"%{name} = arith.subi {column}, %{name}_rest : index"]


def _less_rows(name: str, row: str, terms: list[tuple[str, str]], start: str, layout: _Layout,
               masked: bool) -> list[str]:
    """Lines taking from row `row` of matrix %b of %out, over its columns from `start` on, each term's
    factor (an f32) times its row (terms: (factor, row)), in the terms' order. The vectors run from the
    one holding `start`; where `masked`, that first vector's columns left of `start` keep their values,
    else they change too. `name` prefixes the lines' values."""
    memref, vector = layout.memref, layout.vector
    total = f"x{len(terms)}"

    def summed(at: str, out: str) -> list[str]:
        lines = [f"%{out}_x0 = vector.load %out[%b, {row}, {at}] : {memref}, {vector}"]
        for k, (_, source) in enumerate(terms):
            lines += [f"%{out}_u{k} = vector.load %out[%b, {source}, {at}] : {memref}, {vector}",
                      f"%{out}_x{k + 1} = vector.fma %{name}_f{k}, %{out}_u{k}, %{out}_x{k} : {vector}"]
        return lines

    def loop(first: str) -> list[str]:
        return [f"scf.for %{name}_c = {first} to %width step %lanes {{", *summed(f"%{name}_c", f"{name}_v"),
                f"vector.store %{name}_v_{total}, %out[%b, {row}, %{name}_c] : {memref}, {vector}", "}"]

    lines = [line for k, (factor, _) in enumerate(terms) for line in (
        f"%{name}_n{k} = arith.negf {factor} : f32",
        f"%{name}_f{k} = vector.broadcast %{name}_n{k} : f32 to {vector}")]
    lines += _vector_start(f"{name}_c0", start)
    if not masked:
        return lines + loop(f"%{name}_c0")
    return lines + [
        f"%{name}_inside = arith.cmpi ult, %{name}_c0, %width : index",
        f"scf.if %{name}_inside {{",
        f"%{name}_first = vector.broadcast %{name}_c0 : index to {layout.indices}",
        f"%{name}_columns = arith.addi %{name}_first, %iota : {layout.indices}",
        f"%{name}_from = vector.broadcast {start} : index to {layout.indices}",
        f"%{name}_keep = arith.cmpi uge, %{name}_columns, %{name}_from : {layout.indices}",
        *summed(f"%{name}_c0", f"{name}_h"),
        f"%{name}_put = arith.select %{name}_keep, %{name}_h_{total}, %{name}_h_x0 : {layout.mask}, {vector}",
        f"vector.store %{name}_put, %out[%b, {row}, %{name}_c0] : {memref}, {vector}",
        f"%{name}_next = arith.addi %{name}_c0, %lanes : index",
        *loop(f"%{name}_next"),
        "}",
    ]


def _first_failure(name: str, failed: str, j: str, was: str) -> list[str]:
    """Lines defining %{name}, LAPACK's info after column `j`: j + 1 where `failed` (an i1) and the info
    `was` is 0, else that."""
    return [f"%{name}_ok = arith.cmpi eq, {was}, %i0 : i32",
            f"%{name}_first = arith.andi {failed}, %{name}_ok : i1",
            f"%{name}_j1 = arith.addi {j}, %c1 : index",
            f"%{name}_at = arith.index_cast %{name}_j1 : index to i32",
            f"%{name} = arith.select %{name}_first, %{name}_at, {was} : i32"]


def _constants(lanes: int, **named) -> list[str]:
    """Lines defining the constants every kernel uses (%lanes, %c2.., %zero, %zero64, %unit, %i0, %iota) and
    `named` index constants."""
    return [*(f"%c{k} = arith.constant {k} : index" for k in range(2, BLOCK + 1)),
            f"%lanes = arith.constant {lanes} : index",
            *(f"%{name} = arith.constant {value} : index" for name, value in named.items()),
            "%zero = arith.constant 0.0 : f32",
            "%zero64 = arith.constant 0.0 : f64",
            "%unit = arith.constant 1.0 : f32",
            "%i0 = arith.constant 0 : i32",
            f"%iota = vector.step : vector<{lanes}xindex>"]


def _complex_entry(name: str, at: str, column: str, memref: str) -> list[str]:
    """Lines loading entry (at, column) of matrix %b of %out, a complex one held in f32 rows of [re | im]
    halves of %half columns: %{name}r and %{name}i."""
    return [f"%{name}r = memref.load %out[%b, {at}, {column}] : {memref}",
            f"%{name}q = arith.addi {column}, %half : index",
            f"%{name}i = memref.load %out[%b, {at}, %{name}q] : {memref}"]


def _complex_nonzero(name: str, value: tuple[str, str]) -> list[str]:
    """Lines defining %{name}: whether the complex `value` (f32 parts) is not zero."""
    return [f"%{name}_r = arith.cmpf une, {value[0]}, %zero : f32",
            f"%{name}_i = arith.cmpf une, {value[1]}, %zero : f32",
            f"%{name} = arith.ori %{name}_r, %{name}_i : i1"]


def _scaled_entry(name: str, at: str, column: str, memref: str, scale: tuple[str, str]) -> list[str]:
    """Lines making complex entry (at, column) of matrix %b of %out (see _complex_entry) that times `scale`
    (f64 parts), in f64."""
    return [*_complex_entry(name, at, column, memref),
            *(f"%{name}{part}64 = arith.extf %{name}{part} : f32 to f64" for part in "ri"),
            *_complex_times(f"{name}s", (f"%{name}r64", f"%{name}i64"), scale, "f64"),
            *(f"%{name}{part}32 = arith.truncf %{name}s{part} : f64 to f32" for part in "ri"),
            f"memref.store %{name}r32, %out[%b, {at}, {column}] : {memref}",
            f"memref.store %{name}i32, %out[%b, {at}, %{name}q] : {memref}"]


def _cholesky_diagonal(k: int, j: str, info: str, memref: str, vector: str) -> list[str]:
    """Lines of a Cholesky kernel's row j (the k-th of its block): %info{k + 1}, `info` or j + 1 where the
    diagonal %d{k} is not positive (or NaN), its square root %r{k} (broadcast: %rv{k}), and %s{k}, the first
    column of the vector holding column j."""
    return [f"%d{k} = memref.load %out[%b, {j}, {j}] : {memref}",
            f"%bad{k} = arith.cmpf ule, %d{k}, %zero : f32",
            *_first_failure(f"info{k + 1}", f"%bad{k}", j, info),
            f"%r{k} = math.sqrt %d{k} : f32",
            f"%rv{k} = vector.broadcast %r{k} : f32 to {vector}",
            *_vector_start(f"s{k}", j)]


def cholesky_executable(symbol: str, batch: int, n: int, lanes: int, lower: bool) -> str:
    """The Cholesky kernel for `batch` f32 matrices [n, n], zero padded to [w, w] (w: n in whole vectors):
    the factor in the result's `lower` (else upper) triangle, and info [batch] (see the module docstring).
    The padding's diagonal is set to ones, so its rows stay the identity's. U is made BLOCK rows at a time,
    then taken from every row after them in one pass."""
    width = _padded(n, lanes)
    layout = _Layout(f"memref<{batch}x{width}x{width}xf32>", lanes)
    memref, vector = layout.memref, layout.vector
    block = ["%jb"] + [f"%j{k}" for k in range(1, BLOCK)]
    body = [f"%j{k} = arith.addi %jb, %c{k} : index" for k in range(1, BLOCK)]
    info = "%info0"
    for k, j in enumerate(block):
        body += [*_cholesky_diagonal(k, j, info, memref, vector),
                 f"scf.for %c = %s{k} to %width step %lanes {{",
                 f"%v = vector.load %out[%b, {j}, %c] : {memref}, {vector}",
                 f"%q = arith.divf %v, %rv{k} : {vector}",
                 f"vector.store %q, %out[%b, {j}, %c] : {memref}, {vector}",
                 "}",
                 f"memref.store %r{k}, %out[%b, {j}, {j}] : {memref}"]
        info = f"%info{k + 1}"
        for later in range(k + 1, BLOCK):
            row = block[later]
            body += [f"%e{k}{later} = memref.load %out[%b, {j}, {row}] : {memref}",
                     *_less_rows(f"w{k}{later}", row, [(f"%e{k}{later}", j)], row, layout, masked=False)]
    body += [
        f"%rest = arith.addi %jb, %c{BLOCK} : index",
        "scf.for %i = %rest to %width step %c1 {",
        *(f"%t{k} = memref.load %out[%b, {j}, %i] : {memref}" for k, j in enumerate(block)),
        *_less_rows("t", "%i", [(f"%t{k}", j) for k, j in enumerate(block)], "%i", layout, masked=False),
        "}",
        f"scf.yield {info} : i32",
    ]
    return "\n".join([
        *executable_header(symbol, batch, [("in", memref), ("out", memref), ("info", f"memref<{batch}xi32>")]),
        *_constants(lanes, n=n, width=width),
        *_copy("%width", "%width", memref, vector),
        "scf.for %i = %n to %width step %c1 {",
        f"memref.store %unit, %out[%b, %i, %i] : {memref}",
        "}",
        *(_mirror(layout, lower=True) if lower else []),
        f"%failed = scf.for %jb = %c0 to %width step %c{BLOCK} iter_args(%info0 = %i0) -> (i32) {{",
        *body,
        "}",
        f"memref.store %failed, %info[%b] : memref<{batch}xi32>",
        *(_mirror(layout, lower=False) if lower else []),
        *FOOTER,
    ])


def complex_cholesky_executable(symbol: str, batch: int, n: int, lanes: int) -> str:
    """The Cholesky kernel for `batch` complex<f32> matrices [n, n] held as f32 rows of [re | im] halves,
    each zero padded to w columns (w: n in whole vectors; rows padded to w, the padding's diagonal set to
    ones): U with a = U^H U from the upper triangle, in it, as the f32 kernel makes it (row j's diagonal's
    square root, the row right of it divided by that, and each later row i less conj(U[j, i]) times row j,
    from column i on; BLOCK rows made, then taken from every later row of the n in one pass), and info
    [batch] as that kernel's. The padding rows a last block holds are made too (they stay the
    identity's); what is left of a diagonal's vector start in the lower triangle is not read."""
    width = _padded(n, lanes)
    memref, vector = f"memref<{batch}x{width}x{2 * width}xf32>", f"vector<{lanes}xf32>"

    def row(at: str) -> tuple[str, str]:
        return _row_access(memref, "out", at, vector)

    def entry(name: str, at: str, column: str) -> list[str]:  # its parts, and %{name}n, -im
        return [*_complex_entry(name, at, column, memref), f"%{name}n = arith.negf %{name}i : f32"]

    block = ["%jb"] + [f"%j{k}" for k in range(1, BLOCK)]
    body = [f"%j{k} = arith.addi %jb, %c{k} : index" for k in range(1, BLOCK)]
    info = "%info0"
    for k, j in enumerate(block):
        body += [*_cholesky_diagonal(k, j, info, memref, vector),
                 f"scf.for %c = %s{k} to %half step %lanes {{",
                 "%cq = arith.addi %c, %half : index",
                 *(line for at in ("%c", "%cq") for line in (
                     f"%v{at[1:]} = {row(j)[0].format(c=at)}",
                     f"%q{at[1:]} = arith.divf %v{at[1:]}, %rv{k} : {vector}",
                     row(j)[1].format(c=at, v=f"%q{at[1:]}"))),
                 "}",
                 f"memref.store %r{k}, %out[%b, {j}, {j}] : {memref}",
                 f"%jq{k} = arith.addi {j}, %half : index",
                 f"memref.store %zero, %out[%b, {j}, %jq{k}] : {memref}"]
        info = f"%info{k + 1}"
        for later in range(k + 1, BLOCK):
            at = block[later]
            body += [*entry(f"e{k}{later}", j, at), *_vector_start(f"w{k}{later}", at),
                     *_less_complex_multiple(f"u{k}{later}", f"%e{k}{later}r", f"%e{k}{later}n", row(j), row(at),
                                             "%half", vector, start=f"%w{k}{later}")]
    body += [
        f"%rest = arith.addi %jb, %c{BLOCK} : index",
        "scf.for %i = %rest to %n step %c1 {",
        *(line for k, j in enumerate(block) for line in entry(f"t{k}", j, "%i")),
        *_vector_start("ti", "%i"),
        *_less_complex_multiples("m", [(f"%t{k}r", f"%t{k}n", row(j)[0]) for k, j in enumerate(block)], row("%i"),
                                 "%half", vector, start="%ti"),
        "}",
        f"scf.yield {info} : i32",
    ]
    return "\n".join([
        *executable_header(symbol, batch, [("in", memref), ("out", memref), ("info", f"memref<{batch}xi32>")]),
        *_constants(lanes, n=n, blocks=_padded(n, BLOCK), half=width, width=2 * width),
        *_copy("%half", "%width", memref, vector),
        "scf.for %i = %n to %half step %c1 {",
        f"memref.store %unit, %out[%b, %i, %i] : {memref}",
        "}",
        f"%failed = scf.for %jb = %c0 to %blocks step %c{BLOCK} iter_args(%info0 = %i0) -> (i32) {{",
        *body,
        "}",
        f"memref.store %failed, %info[%b] : memref<{batch}xi32>",
        *FOOTER,
    ])


def _mirror(layout: _Layout, lower: bool) -> list[str]:
    """Lines copying matrix %b's `lower` (else upper) triangle of %out onto the other one by square blocks
    of %lanes rows, each read, transposed and written across the diagonal; a block on the diagonal also
    gets the other triangle's entries in the triangle copied, which neither the kernel nor its result reads."""
    square, memref = f"vector<{layout.lanes}x{layout.lanes}xf32>", layout.memref
    source, target = ("%c, %r", "%r, %c") if lower else ("%r, %c", "%c, %r")
    return [
        "scf.for %r = %c0 to %width step %lanes {",
        "scf.for %c = %r to %width step %lanes {",
        f"%block = vector.transfer_read %out[%b, {source}], %zero {{in_bounds = [true, true]}} : {memref}, {square}",
        f"%turned = vector.transpose %block, [1, 0] : {square} to {square}",
        f"vector.transfer_write %turned, %out[%b, {target}] {{in_bounds = [true, true]}} : {square}, {memref}",
        "}",
        "}",
    ]


def _pivot_row(q: str, j: str, key: list[str], memref: str, vector: str, pivots: str) -> list[str]:
    """Lines finding column j's pivot row %{q}p at or below row j (the first largest %a the lines `key` make
    of row %i's entry, or of a NaN, %nan, the first, only where every candidate is one), storing it in
    `pivots` and swapping rows j and %{q}p whole (%width columns of %out)."""
    return [
        f"%{q}p, %{q}best = scf.for %i = {j} to %m step %c1 iter_args(%at = {j}, %best = %none) -> (index, f32) {{",
        *key,
        "%key = arith.select %nan, %nan_key, %a : f32",
        "%more = arith.cmpf ogt, %key, %best : f32",
        "%at1 = arith.select %more, %i, %at : index",
        "%best1 = arith.select %more, %key, %best : f32",
        "scf.yield %at1, %best1 : index, f32",
        "}",
        f"%{q}p32 = arith.index_cast %{q}p : index to i32",
        f"memref.store %{q}p32, %pivots[%b, {j}] : {pivots}",
        f"%{q}moved = arith.cmpi ne, %{q}p, {j} : index",
        f"scf.if %{q}moved {{",
        "scf.for %c = %c0 to %width step %lanes {",
        f"%x = vector.load %out[%b, {j}, %c] : {memref}, {vector}",
        f"%y = vector.load %out[%b, %{q}p, %c] : {memref}, {vector}",
        f"vector.store %y, %out[%b, {j}, %c] : {memref}, {vector}",
        f"vector.store %x, %out[%b, %{q}p, %c] : {memref}, {vector}",
        "}",
        "}",
    ]


def _lu_panel(p: str, jb: str, columns: int, layout: _Layout, pivots: str, info: str) -> tuple[list[str], str]:
    """(lines, info after them): getf2 on the panel of `columns` columns from column `jb` of matrix %b of
    %out (each column's pivot found, its rows swapped whole, the column below scaled, and the panel's later
    columns updated), then the panel's rows of U right of it and the rows below it less the panel's
    products, in one pass over each row. `pivots`: the pivots' memref; `p` prefixes the lines' values."""
    memref, vector = layout.memref, layout.vector
    panel = [jb] + [f"%{p}j{k}" for k in range(1, columns)]
    lines = [f"%{p}j{k} = arith.addi {jb}, %c{k} : index" for k in range(1, columns)]
    for k, j in enumerate(panel):
        q = f"{p}{k}"
        lines += [
            *_pivot_row(q, j, [f"%v = memref.load %out[%b, %i, {j}] : {memref}", "%a = math.absf %v : f32",
                                "%nan = arith.cmpf uno, %v, %v : f32"], memref, vector, pivots),
            f"%{q}d = memref.load %out[%b, {j}, {j}] : {memref}",
            f"%{q}singular = arith.cmpf oeq, %{q}d, %zero : f32",
            *_first_failure(f"{q}info", f"%{q}singular", j, info),
            f"%{q}recip = arith.divf %unit, %{q}d : f32",
            *(f"%{q}u{later} = memref.load %out[%b, {j}, {panel[later]}] : {memref}"
              for later in range(k + 1, columns)),
            f"%{q}below = arith.addi {j}, %c1 : index",
            f"scf.for %i = %{q}below to %m step %c1 {{",
            f"%x = memref.load %out[%b, %i, {j}] : {memref}",
            f"%scaled = arith.mulf %x, %{q}recip : f32",
            f"%l = arith.select %{q}singular, %x, %scaled : f32",
            f"memref.store %l, %out[%b, %i, {j}] : {memref}",
            "%nl = arith.negf %l : f32",
            *(line for later in range(k + 1, columns) for line in (
                f"%y{later} = memref.load %out[%b, %i, {panel[later]}] : {memref}",
                f"%z{later} = math.fma %nl, %{q}u{later}, %y{later} : f32",
                f"memref.store %z{later}, %out[%b, %i, {panel[later]}] : {memref}")),
            "}",
        ]
        info = f"%{q}info"
    lines.append(f"%{p}right = arith.addi {jb}, %c{columns} : index")
    for k in range(1, columns):
        terms = [(f"%{p}l{k}_{earlier}", panel[earlier]) for earlier in range(k)]
        lines += [f"%{p}l{k}_{earlier} = memref.load %out[%b, {panel[k]}, {panel[earlier]}] : {memref}"
                  for earlier in range(k)]
        lines += _less_rows(f"{p}u{k}", panel[k], terms, f"%{p}right", layout, masked=True)
    lines += [
        f"scf.for %i = %{p}right to %m step %c1 {{",
        *(f"%{p}t{k} = memref.load %out[%b, %i, {j}] : {memref}" for k, j in enumerate(panel)),
        *_less_rows(f"{p}t", "%i", [(f"%{p}t{k}", j) for k, j in enumerate(panel)], f"%{p}right", layout,
                    masked=True),
        "}",
    ]
    return lines, info


def _complex_lu_panel(p: str, jb: str, columns: int, memref: str, vector: str, lanes: int, pivots: str,
                      info: str) -> tuple[list[str], str]:
    """_lu_panel for complex matrices held as f32 rows of [re | im] halves (%half columns each): the pivot
    is the first largest |re| + |im| (LAPACK's icamax), the column below is multiplied by the pivot's
    reciprocal (formed in f64), and the updates take complex multiples."""
    panel = [jb] + [f"%{p}j{k}" for k in range(1, columns)]
    lines = [f"%{p}j{k} = arith.addi {jb}, %c{k} : index" for k in range(1, columns)]

    def entry(name: str, at: str, column: str) -> list[str]:
        return _complex_entry(name, at, column, memref)

    def store(name: str, at: str, column: str, re: str, im: str) -> list[str]:
        return [f"memref.store {re}, %out[%b, {at}, {column}] : {memref}",
                f"%{name}sq = arith.addi {column}, %half : index",
                f"memref.store {im}, %out[%b, {at}, %{name}sq] : {memref}"]

    def row(at: str) -> tuple[str, str]:
        return _row_access(memref, "out", at, vector)

    for k, j in enumerate(panel):
        q = f"{p}{k}"
        lines += [
            *_pivot_row(q, j, [*entry("v", "%i", j), "%ar = math.absf %vr : f32", "%ai = math.absf %vi : f32",
                                "%a = arith.addf %ar, %ai : f32", "%nan = arith.cmpf uno, %vr, %vi : f32"],
                        memref, vector, pivots),
            *entry(f"{q}d", j, j),
            f"%{q}zr = arith.cmpf oeq, %{q}dr, %zero : f32",
            f"%{q}zi = arith.cmpf oeq, %{q}di, %zero : f32",
            f"%{q}singular = arith.andi %{q}zr, %{q}zi : i1",
            *_first_failure(f"{q}info", f"%{q}singular", j, info),
            *_complex_reciprocal(f"{q}e", f"%{q}dr", f"%{q}di"),
            *(line for later in range(k + 1, columns) for line in entry(f"{q}u{later}", j, panel[later])),
            f"%{q}below = arith.addi {j}, %c1 : index",
            f"scf.for %i = %{q}below to %m step %c1 {{",
            *entry("x", "%i", j),
            *_complex_times("s", ("%xr", "%xi"), (f"%{q}er", f"%{q}ei")),
            f"%lr = arith.select %{q}singular, %xr, %sr : f32",
            f"%li = arith.select %{q}singular, %xi, %si : f32",
            *store("l", "%i", j, "%lr", "%li"),
            *(line for later in range(k + 1, columns) for line in (
                *entry(f"y{later}", "%i", panel[later]),
                *_complex_times(f"m{later}", ("%lr", "%li"), (f"%{q}u{later}r", f"%{q}u{later}i")),  # y - l u
                f"%z{later}r = arith.subf %y{later}r, %m{later}r : f32",
                f"%z{later}i = arith.subf %y{later}i, %m{later}i : f32",
                *store(f"z{later}", "%i", panel[later], f"%z{later}r", f"%z{later}i"))),
            "}",
        ]
        info = f"%{q}info"
    lines += [f"%{p}right = arith.addi {jb}, %c{columns} : index",
              *_vector_start(f"{p}c0", f"%{p}right"),
              f"%{p}first = vector.broadcast %{p}c0 : index to vector<{lanes}xindex>",
              f"%{p}columns = arith.addi %{p}first, %iota : vector<{lanes}xindex>",
              f"%{p}from = vector.broadcast %{p}right : index to vector<{lanes}xindex>",
              f"%{p}keep = arith.cmpi uge, %{p}columns, %{p}from : vector<{lanes}xindex>"]
    for k in range(1, columns):
        terms = []
        for earlier in range(k):
            lines += entry(f"{p}l{k}_{earlier}", panel[k], panel[earlier])
            terms.append((f"%{p}l{k}_{earlier}r", f"%{p}l{k}_{earlier}i", row(panel[earlier])[0]))
        lines += _less_complex_multiples(f"{p}u{k}", terms, row(panel[k]), "%half", vector, f"%{p}c0",
                                         f"%{p}keep")
    lines += [
        f"scf.for %i = %{p}right to %m step %c1 {{",
        *(line for k, j in enumerate(panel) for line in entry(f"{p}t{k}", "%i", j)),
        *_less_complex_multiples(f"{p}t", [(f"%{p}t{k}r", f"%{p}t{k}i", row(j)[0]) for k, j in enumerate(panel)],
                                 row("%i"), "%half", vector, f"%{p}c0", f"%{p}keep"),
        "}",
    ]
    return lines, info


def complex_lu_executable(symbol: str, batch: int, m: int, n: int, lanes: int) -> str:
    """The LU kernel for `batch` complex<f32> matrices [m, n] held as f32 rows of [re | im] halves, each zero
    padded to w columns (w: n in whole vectors): as lu_executable, by _complex_lu_panel."""
    half = _padded(n, lanes)
    memref, vector = f"memref<{batch}x{m}x{2 * half}xf32>", f"vector<{lanes}xf32>"
    return _lu_by_panels(symbol, batch, m, n, memref, vector, lanes, {"half": half, "width": 2 * half},
                         lambda p, jb, columns, pivots, info: _complex_lu_panel(p, jb, columns, memref, vector, lanes,
                                                                                pivots, info))


def lu_executable(symbol: str, batch: int, m: int, n: int, lanes: int) -> str:
    """The LU kernel for `batch` f32 matrices [m, n], zero padded to [m, w] (w: n in whole vectors): getf2's
    factors in place of the matrix, the 0-based pivot rows [batch, min(m, n)] and info [batch] (see the
    module docstring), by panels of BLOCK columns."""
    width = _padded(n, lanes)
    layout = _Layout(f"memref<{batch}x{m}x{width}xf32>", lanes)
    return _lu_by_panels(symbol, batch, m, n, layout.memref, layout.vector, lanes, {"width": width},
                         lambda p, jb, columns, pivots, info: _lu_panel(p, jb, columns, layout, pivots, info))


def _lu_by_panels(symbol: str, batch: int, m: int, n: int, memref: str, vector: str, lanes: int, widths: dict,
                  panel) -> str:
    """An LU kernel's text: the matrix copied to %out (%width columns), then `panel(prefix, first column,
    columns, pivots memref, info before)` -> (lines, info after) over panels of BLOCK columns, the rest in
    one panel; info stored last."""
    count = min(m, n)
    whole, rest = count // BLOCK * BLOCK, count % BLOCK
    pivots = f"memref<{batch}x{count}xi32>"
    loop, info = panel("b", "%jb", BLOCK, pivots, "%info0")
    lines = [
        *executable_header(symbol, batch, [("in", memref), ("out", memref), ("pivots", pivots),
                                           ("info", f"memref<{batch}xi32>")]),
        *_constants(lanes, m=m, whole=whole, **widths),
        "%none = arith.constant -2.0 : f32",
        "%nan_key = arith.constant -1.0 : f32",
        *_copy("%m", "%width", memref, vector),
        f"%failed = scf.for %jb = %c0 to %whole step %c{BLOCK} iter_args(%info0 = %i0) -> (i32) {{",
        *loop,
        f"scf.yield {info} : i32",
        "}",
    ]
    info = "%failed"
    if rest:
        tail, info = panel("t", "%whole", rest, pivots, info)
        lines += tail
    lines += [f"memref.store {info}, %info[%b] : memref<{batch}xi32>", *FOOTER]
    return "\n".join(lines)


def _reflection(p: str, top: str, v: str, tau: str, start: str, layout: _Layout, scratch: str) -> list[str]:
    """Lines applying H = I - tau v v^T to rows `top`.. of matrix %b of %out, over its columns from `start`
    on (the first vector's columns left of it kept): v's entry at `top` is 1, at a row i below it
    `v`.format(i=...) (an f32 load); %w, a row of scratch of type `scratch`, holds v^T times the rows
    first. `p` prefixes the lines' values."""
    memref, vector, row = layout.memref, layout.vector, scratch
    return [
        *_vector_start(f"{p}c0", start),
        f"%{p}inside = arith.cmpi ult, %{p}c0, %width : index",
        f"scf.if %{p}inside {{",
        f"scf.for %c = %{p}c0 to %width step %lanes {{",
        f"%u = vector.load %out[%b, {top}, %c] : {memref}, {vector}",
        f"vector.store %u, %w[%c] : {row}, {vector}",
        "}",
        f"%{p}below = arith.addi {top}, %c1 : index",
        f"scf.for %i = %{p}below to %m step %c1 {{",
        f"%vi = {v.format(i='%i')}",
        f"%vv = vector.broadcast %vi : f32 to {vector}",
        f"scf.for %c = %{p}c0 to %width step %lanes {{",
        f"%x = vector.load %out[%b, %i, %c] : {memref}, {vector}",
        f"%s = vector.load %w[%c] : {row}, {vector}",
        f"%t = vector.fma %vv, %x, %s : {vector}",
        f"vector.store %t, %w[%c] : {row}, {vector}",
        "}",
        "}",
        f"%{p}first = vector.broadcast %{p}c0 : index to {layout.indices}",
        f"%{p}columns = arith.addi %{p}first, %iota : {layout.indices}",
        f"%{p}from = vector.broadcast {start} : index to {layout.indices}",
        f"%{p}keep = arith.cmpi uge, %{p}columns, %{p}from : {layout.indices}",
        f"scf.for %i = {top} to %m step %c1 {{",
        f"%at_top = arith.cmpi eq, %i, {top} : index",
        "%vi = scf.if %at_top -> (f32) {",
        "scf.yield %unit : f32",
        "} else {",
        f"%vl = {v.format(i='%i')}",
        "scf.yield %vl : f32",
        "}",
        f"%f = arith.mulf %vi, {tau} : f32",
        "%nf = arith.negf %f : f32",
        f"%fv = vector.broadcast %nf : f32 to {vector}",
        f"%x0 = vector.load %out[%b, %i, %{p}c0] : {memref}, {vector}",
        f"%s0 = vector.load %w[%{p}c0] : {row}, {vector}",
        f"%y0 = vector.fma %fv, %s0, %x0 : {vector}",
        f"%z0 = arith.select %{p}keep, %y0, %x0 : {layout.mask}, {vector}",
        f"vector.store %z0, %out[%b, %i, %{p}c0] : {memref}, {vector}",
        f"%next = arith.addi %{p}c0, %lanes : index",
        "scf.for %c = %next to %width step %lanes {",
        f"%x = vector.load %out[%b, %i, %c] : {memref}, {vector}",
        f"%s = vector.load %w[%c] : {row}, {vector}",
        f"%y = vector.fma %fv, %s, %x : {vector}",
        f"vector.store %y, %out[%b, %i, %c] : {memref}, {vector}",
        "}",
        "}",
        "}",
    ]


def _larfg(p: str, alpha: str, tail: str) -> list[str]:
    """Lines of LAPACK's larfg on `alpha` (an f32) and `tail`, the sum of the squares below it (an f64):
    %{p}tau (0 where tail is 0: no reflection), %{p}shift (what v's entries below alpha are divided by) and
    %{p}made (the entry H leaves in alpha's place: beta = -sign(alpha) * norm, or alpha where tau is 0).
    The norm is taken in f64, so no square of an f32 entry overflows or underflows."""
    return [
        f"%{p}alpha64 = arith.extf {alpha} : f32 to f64",
        f"%{p}norm2 = math.fma %{p}alpha64, %{p}alpha64, {tail} : f64",
        f"%{p}norm64 = math.sqrt %{p}norm2 : f64",
        f"%{p}norm = arith.truncf %{p}norm64 : f64 to f32",
        f"%{p}minus = arith.negf %{p}norm : f32",
        f"%{p}up = arith.cmpf oge, {alpha}, %zero : f32",
        f"%{p}beta = arith.select %{p}up, %{p}minus, %{p}norm : f32",
        f"%{p}none = arith.cmpf oeq, {tail}, %zero64 : f64",
        f"%{p}safe = arith.select %{p}none, %unit, %{p}beta : f32",
        f"%{p}gap = arith.subf %{p}safe, {alpha} : f32",
        f"%{p}tau0 = arith.divf %{p}gap, %{p}safe : f32",
        f"%{p}tau = arith.select %{p}none, %zero, %{p}tau0 : f32",
        f"%{p}shift0 = arith.subf {alpha}, %{p}safe : f32",
        f"%{p}shift = arith.select %{p}none, %unit, %{p}shift0 : f32",
        f"%{p}made = arith.select %{p}none, {alpha}, %{p}beta : f32",
    ]


def _squares(p: str, first: str, end: str, entry: str) -> list[str]:
    """Lines defining %{p}tail, the f64 sum of the squares of `entry`.format(q=...) (an f32 load) for q from
    `first` to `end`."""
    return [
        f"%{p}tail = scf.for %{p}q = {first} to {end} step %c1 iter_args(%{p}sum = %zero64) -> (f64) {{",
        f"%{p}x = {entry.format(q=f'%{p}q')}",
        f"%{p}x64 = arith.extf %{p}x : f32 to f64",
        f"%{p}more = math.fma %{p}x64, %{p}x64, %{p}sum : f64",
        f"scf.yield %{p}more : f64",
        "}",
    ]


def _column_reflector(p: str, memref: str) -> list[str]:
    """Lines making larfg's reflector (see _larfg, prefixed `p`) of column %j of matrix %b of %out from its
    diagonal down, with v below the diagonal in place of the column (%j1: j + 1; rows up to %m)."""
    return [
        f"%{p}a = memref.load %out[%b, %j, %j] : {memref}",
        *_squares(p, "%j1", "%m", f"memref.load %out[%b, {{q}}, %j] : {memref}"),
        *_larfg(p, f"%{p}a", f"%{p}tail"),
        "scf.for %i = %j1 to %m step %c1 {",
        f"%x = memref.load %out[%b, %i, %j] : {memref}",
        f"%v = arith.divf %x, %{p}shift : f32",
        f"memref.store %v, %out[%b, %i, %j] : {memref}",
        "}",
    ]


def _row_reflector(p: str, memref: str) -> list[str]:
    """Lines making larfg's reflector (see _larfg, prefixed `p`) of row %j of matrix %b of %out right of the
    diagonal, with row j becoming v: zeros up to column j, 1 at j + 1, the rest divided (%j1, %j2: j + 1,
    j + 2; columns up to %n)."""
    return [
        f"%{p}a = memref.load %out[%b, %j, %j1] : {memref}",
        *_squares(p, "%j2", "%n", f"memref.load %out[%b, %j, {{q}}] : {memref}"),
        *_larfg(p, f"%{p}a", f"%{p}tail"),
        "scf.for %c = %c0 to %j1 step %c1 {",
        f"memref.store %zero, %out[%b, %j, %c] : {memref}",
        "}",
        f"memref.store %unit, %out[%b, %j, %j1] : {memref}",
        "scf.for %c = %j2 to %n step %c1 {",
        f"%x = memref.load %out[%b, %j, %c] : {memref}",
        f"%v = arith.divf %x, %{p}shift : f32",
        f"memref.store %v, %out[%b, %j, %c] : {memref}",
        "}",
    ]


def qr_executable(symbol: str, batch: int, m: int, n: int, lanes: int) -> str:
    """The Householder QR kernel (geqrf, as geqr2 orders the work) for `batch` f32 matrices [m, n] zero padded
    to [m, w]: R above the diagonal and the reflectors below it in place of the matrix, and tau [batch,
    min(m, n)]. Each column's reflector is LAPACK's larfg (beta = -sign(alpha) * norm; none, tau = 0, where
    the column below the diagonal is zero), applied to the columns right of it."""
    width, count = _padded(n, lanes), min(m, n)
    layout = _Layout(f"memref<{batch}x{m}x{width}xf32>", lanes)
    memref = layout.memref
    return "\n".join([
        *executable_header(symbol, batch, [("in", memref), ("out", memref), ("taus", f"memref<{batch}x{count}xf32>")]),
        *_constants(lanes, m=m, count=count, width=width),
        f"%w = memref.alloca() alignment = 64 : memref<{width}xf32>",
        *_copy("%m", "%width", memref, layout.vector),
        "scf.for %j = %c0 to %count step %c1 {",
        "%j1 = arith.addi %j, %c1 : index",
        *_column_reflector("", memref),
        f"memref.store %tau, %taus[%b, %j] : memref<{batch}x{count}xf32>",
        *_reflection("r", "%j", f"memref.load %out[%b, {{i}}, %j] : {memref}", "%tau", "%j1", layout,
                     f"memref<{width}xf32>"),
        f"memref.store %made, %out[%b, %j, %j] : {memref}",
        "}",
        *FOOTER,
    ])


def _complex_larfg(p: str, alpha: tuple[str, str], tail: str) -> list[str]:
    """Lines of LAPACK's zlarfg on the complex `alpha` (f32 parts) and `tail` (the f64 sum of |x|^2 below it),
    in f64: %{p}taur, %{p}taui (tau = (beta - alpha) / beta; 0 where tail and alpha's imaginary part are 0:
    no reflection), %{p}sr, %{p}si (1 / (alpha - beta) in f64, what the entries below alpha are multiplied by,
    in f64 too: for an alpha near f32's largest it is below f32's normal range; 1 where there is no reflection) and %{p}madr, %{p}madi (beta = -sign(re alpha) |(alpha, x)|, or alpha)."""
    ar, ai = alpha
    return [
        f"%{p}ar = arith.extf {ar} : f32 to f64",
        f"%{p}ai = arith.extf {ai} : f32 to f64",
        f"%{p}aa = math.fma %{p}ar, %{p}ar, {tail} : f64",
        f"%{p}norm2 = math.fma %{p}ai, %{p}ai, %{p}aa : f64",
        f"%{p}norm = math.sqrt %{p}norm2 : f64",
        f"%{p}minus = arith.negf %{p}norm : f64",
        f"%{p}up = arith.cmpf oge, %{p}ar, %zero64 : f64",
        f"%{p}beta0 = arith.select %{p}up, %{p}minus, %{p}norm : f64",
        f"%{p}flat = arith.cmpf oeq, {tail}, %zero64 : f64",
        f"%{p}real = arith.cmpf oeq, %{p}ai, %zero64 : f64",
        f"%{p}none = arith.andi %{p}flat, %{p}real : i1",
        f"%{p}beta = arith.select %{p}none, %unit64, %{p}beta0 : f64",
        f"%{p}gap = arith.subf %{p}beta, %{p}ar : f64",
        f"%{p}tr = arith.divf %{p}gap, %{p}beta : f64",
        f"%{p}ti0 = arith.divf %{p}ai, %{p}beta : f64",
        f"%{p}ti = arith.negf %{p}ti0 : f64",
        f"%{p}dr = arith.subf %{p}ar, %{p}beta : f64",
        f"%{p}dd = arith.mulf %{p}dr, %{p}dr : f64",
        f"%{p}d2 = math.fma %{p}ai, %{p}ai, %{p}dd : f64",
        f"%{p}rr = arith.divf %{p}dr, %{p}d2 : f64",
        f"%{p}ri0 = arith.divf %{p}ai, %{p}d2 : f64",
        f"%{p}ri = arith.negf %{p}ri0 : f64",
        *(line for name, value in (("taur", "tr"), ("taui", "ti"))
          for line in (f"%{p}{name}32 = arith.truncf %{p}{value} : f64 to f32",
                       f"%{p}{name} = arith.select %{p}none, %zero, %{p}{name}32 : f32")),
        f"%{p}sr = arith.select %{p}none, %unit64, %{p}rr : f64",
        f"%{p}si = arith.select %{p}none, %zero64, %{p}ri : f64",
        f"%{p}beta32 = arith.truncf %{p}beta0 : f64 to f32",
        f"%{p}madr = arith.select %{p}none, {ar}, %{p}beta32 : f32",
        f"%{p}madi = arith.select %{p}none, {ai}, %zero : f32",
    ]


def _complex_reflection(p: str, top: str, source: str, column: str, tau: tuple[str, str], start: str, memref: str,
                        vector: str, lanes: int, scratch: str) -> list[str]:
    """Lines applying I - tau v v^H to rows `top`.. of matrix %b of %out (f32 rows of [re | im] halves of
    %half columns, rows up to %m), over its columns from `start` on (the first vector's columns left of it
    kept): v's entry at `top` is 1, below it column `column` of %{source}. %w (of type `scratch`, 2 %half
    long) holds v^H times the rows first."""
    w_access = _scratch_access(scratch, vector)

    def row(at: str) -> tuple[str, str]:
        return _row_access(memref, "out", at, vector)

    def v_entry(name: str) -> list[str]:  # %{name}r, %{name}i: v's entry at row %i (1 at top)
        return [f"%{name}r0 = memref.load %{source}[%b, %i, {column}] : {memref}",
                f"%{name}q = arith.addi {column}, %half : index",
                f"%{name}i0 = memref.load %{source}[%b, %i, %{name}q] : {memref}",
                f"%{name}top = arith.cmpi eq, %i, {top} : index",
                f"%{name}r = arith.select %{name}top, %unit, %{name}r0 : f32",
                f"%{name}i = arith.select %{name}top, %zero, %{name}i0 : f32"]

    taur, taui = tau
    return [
        *_vector_start(f"{p}c0", start),
        f"%{p}inside = arith.cmpi ult, %{p}c0, %half : index",
        f"scf.if %{p}inside {{",
        f"scf.for %{p}wc = %{p}c0 to %half step %lanes {{",  # w: row top first
        f"%{p}wcq = arith.addi %{p}wc, %half : index",
        *(line for at in ("wc", "wcq") for line in (f"%{p}{at}v = {row(top)[0].format(c=f'%{p}{at}')}",
                                                     w_access[1].format(c=f"%{p}{at}", v=f"%{p}{at}v"))),
        "}",
        f"%{p}below = arith.addi {top}, %c1 : index",
        f"scf.for %i = %{p}below to %m step %c1 {{",
        *v_entry("v"),
        "%nvr = arith.negf %vr : f32",
        *_less_complex_multiples(f"{p}s", [("%nvr", "%vi", row("%i")[0])], w_access, "%half", vector,
                                 f"%{p}c0"),
        "}",
        f"%{p}first = vector.broadcast %{p}c0 : index to vector<{lanes}xindex>",
        f"%{p}columns = arith.addi %{p}first, %iota : vector<{lanes}xindex>",
        f"%{p}from = vector.broadcast {start} : index to vector<{lanes}xindex>",
        f"%{p}keep = arith.cmpi uge, %{p}columns, %{p}from : vector<{lanes}xindex>",
        f"scf.for %i = {top} to %m step %c1 {{",
        *v_entry("f"),
        *_complex_times("g", (taur, taui), ("%fr", "%fi")),
        *_less_complex_multiples(f"{p}u", [("%gr", "%gi", w_access[0])], row("%i"), "%half", vector, f"%{p}c0",
                                 f"%{p}keep"),
        "}",
        "}",
    ]


def complex_qr_executable(symbol: str, batch: int, m: int, n: int, lanes: int) -> str:
    """qr_executable for `batch` complex<f32> matrices [m, n] held as f32 rows of [re | im] halves, each zero
    padded to w columns: zgeqr2's reflectors (zlarfg's, in f64) below the diagonal, R on and above it, and
    tau [batch, min(m, n), 2] (real and imaginary parts); each reflector H applied as H^H (conj(tau)) to the
    columns right of it."""
    half, count = _padded(n, lanes), min(m, n)
    memref, vector = f"memref<{batch}x{m}x{2 * half}xf32>", f"vector<{lanes}xf32>"
    taus, scratch = f"memref<{batch}x{count}x2xf32>", f"memref<{2 * half}xf32>"
    entry = f"memref.load %out[%b, {{q}}, {{column}}] : {memref}"
    return "\n".join([
        *executable_header(symbol, batch, [("in", memref), ("out", memref), ("taus", taus)]),
        *_constants(lanes, m=m, count=count, half=half, width=2 * half),
        "%unit64 = arith.constant 1.0 : f64",
        f"%w = memref.alloca() alignment = 64 : {scratch}",
        *_copy("%m", "%width", memref, vector),
        "scf.for %j = %c0 to %count step %c1 {",
        "%j1 = arith.addi %j, %c1 : index",
        "%jq = arith.addi %j, %half : index",
        f"%alr = memref.load %out[%b, %j, %j] : {memref}",
        f"%ali = memref.load %out[%b, %j, %jq] : {memref}",
        *_squares("re", "%j1", "%m", entry.format(q="{q}", column="%j")),
        *_squares("im", "%j1", "%m", entry.format(q="{q}", column="%jq")),
        "%tail = arith.addf %retail, %imtail : f64",
        *_complex_larfg("h", ("%alr", "%ali"), "%tail"),
        "scf.for %i = %j1 to %m step %c1 {",
        *_scaled_entry("x", "%i", "%j", memref, ("%hsr", "%hsi")),
        "}",
        f"memref.store %htaur, %taus[%b, %j, %c0] : {taus}",
        f"memref.store %htaui, %taus[%b, %j, %c1] : {taus}",
        "%ctaui = arith.negf %htaui : f32",
        *_complex_reflection("r", "%j", "out", "%j", ("%htaur", "%ctaui"), "%j1", memref, vector, lanes, scratch),
        f"memref.store %hmadr, %out[%b, %j, %j] : {memref}",
        f"memref.store %hmadi, %out[%b, %j, %jq] : {memref}",
        "}",
        *FOOTER,
    ])


def _identity_then_reflectors_last_first(memref: str, vector: str) -> list[str]:
    """Lines of a Q kernel before each reflector's: %out the first %n columns of the identity (%width
    columns; a complex one's real half first), then the loop over the %k reflectors, last first, opened
    with %j the reflector's index."""
    return [
        f"%zeros = arith.constant dense<0.0> : {vector}",
        "scf.for %i = %c0 to %m step %c1 {",
        "scf.for %c = %c0 to %width step %lanes {",
        f"vector.store %zeros, %out[%b, %i, %c] : {memref}, {vector}",
        "}",
        "%diagonal = arith.cmpi ult, %i, %n : index",
        "scf.if %diagonal {",
        f"memref.store %unit, %out[%b, %i, %i] : {memref}",
        "}",
        "}",
        "%last = arith.subi %k, %c1 : index",
        "scf.for %step = %c0 to %k step %c1 {",
        "%j = arith.subi %last, %step : index",
    ]


def complex_householder_q_executable(symbol: str, batch: int, m: int, n: int, k: int, lanes: int) -> str:
    """householder_q_executable for complex<f32> reflectors (zung2r's order) held as f32 rows of [re | im]
    halves, tau [batch, k, 2]: the first n columns of the identity, then each H = I - tau v v^H, last first,
    applied to the rows and columns from its own on."""
    half = _padded(n, lanes)
    memref, vector = f"memref<{batch}x{m}x{2 * half}xf32>", f"vector<{lanes}xf32>"
    taus, scratch = f"memref<{batch}x{k}x2xf32>", f"memref<{2 * half}xf32>"
    return "\n".join([
        *executable_header(symbol, batch, [("in", memref), ("taus", taus), ("out", memref)]),
        *_constants(lanes, m=m, n=n, k=k, half=half, width=2 * half),
        f"%w = memref.alloca() alignment = 64 : {scratch}",
        *_identity_then_reflectors_last_first(memref, vector),
        f"%taur = memref.load %taus[%b, %j, %c0] : {taus}",
        f"%taui = memref.load %taus[%b, %j, %c1] : {taus}",
        *_complex_reflection("r", "%j", "in", "%j", ("%taur", "%taui"), "%j", memref, vector, lanes, scratch),
        "}",
        *FOOTER,
    ])


def householder_q_executable(symbol: str, batch: int, m: int, n: int, k: int, lanes: int) -> str:
    """The kernel forming Q = H_0 ... H_{k-1} (orgqr, as org2r orders the work) for `batch` sets of k of
    geqrf's reflectors (below the diagonal of f32 [m, n] matrices, zero padded to [m, w]) and their tau:
    the first n columns of the identity, then the reflectors applied last first, each to the rows and
    columns from its own on."""
    width = _padded(n, lanes)
    layout = _Layout(f"memref<{batch}x{m}x{width}xf32>", lanes)
    memref = layout.memref
    return "\n".join([
        *executable_header(symbol, batch, [("in", memref), ("taus", f"memref<{batch}x{k}xf32>"), ("out", memref)]),
        *_constants(lanes, m=m, n=n, k=k, width=width),
        f"%w = memref.alloca() alignment = 64 : memref<{width}xf32>",
        *_identity_then_reflectors_last_first(memref, layout.vector),
        f"%tau = memref.load %taus[%b, %j] : memref<{batch}x{k}xf32>",
        *_reflection("r", "%j", f"memref.load %in[%b, {{i}}, %j] : {memref}", "%tau", "%j", layout,
                     f"memref<{width}xf32>"),
        "}",
        *FOOTER,
    ])


# Rows a pass of the eigen kernel takes together: their sums with a reflector run side by side, so that their
# multiply-adds do not wait on each other, and the reflector's vectors are loaded once for all of them.
ROW_GROUP = 4


def _in_groups(name: str, first: str, end: str, body) -> list[str]:
    """Lines running body(rows) (rows: index values) over the rows from `first` to `end`, ROW_GROUP at a time,
    then the rest one at a time; `name` prefixes the lines' values."""
    return [
        f"%{name}_count = arith.subi {end}, {first} : index",
        f"%{name}_rest = arith.remui %{name}_count, %c{ROW_GROUP} : index",
        f"%{name}_end = arith.subi {end}, %{name}_rest : index",
        f"scf.for %i = {first} to %{name}_end step %c{ROW_GROUP} {{",
        *(f"%i{u} = arith.addi %i, %c{u} : index" for u in range(1, ROW_GROUP)),
        *body(["%i"] + [f"%i{u}" for u in range(1, ROW_GROUP)]),
        "}",
        f"scf.for %i = %{name}_end to {end} step %c1 {{",
        *body(["%i"]),
        "}",
    ]


def _row_dots(matrix: str, rows: list[str], start: str, layout: _Layout) -> list[str]:
    """Lines defining %dot0.., the dot products of `rows` of matrix %b of `matrix` with reflector row %j of
    %out, in one pass over the vectors from the one holding column `start` on (v is zero left of it)."""
    memref, vector = layout.memref, layout.vector
    group = range(len(rows))
    types = ", ".join([vector] * len(rows))
    return [
        f"%parts:{len(rows)} = scf.for %c = {start} to %width step %lanes iter_args("
        + ", ".join(f"%part{u} = %zeros" for u in group) + f") -> ({types}) {{",
        f"%v = vector.load %out[%b, %j, %c] : {memref}, {vector}",
        *(line for u, row in zip(group, rows) for line in (
            f"%x{u} = vector.load {matrix}[%b, {row}, %c] : {memref}, {vector}",
            f"%y{u} = vector.fma %x{u}, %v, %part{u} : {vector}")),
        f"scf.yield {', '.join(f'%y{u}' for u in group)} : {types}",
        "}",
        *(f"%dot{u} = vector.reduction <add>, %parts#{u} : {vector} into f32" for u in group),
    ]


def _products(rows: list[str], scratch: str, layout: _Layout) -> list[str]:
    """Lines putting p_i = tau (row i . v) in %w (type `scratch`) for each of `rows` of matrix %b of %out."""
    return [*_row_dots("%out", rows, "%s", layout),
            *(line for u, row in enumerate(rows) for line in (
                f"%p{u} = arith.mulf %dot{u}, %tau : f32",
                f"memref.store %p{u}, %w[{row}] : {scratch}"))]


def _rank_two_update(rows: list[str], scratch: str, layout: _Layout) -> list[str]:
    """Lines taking v_i w + w_i v from each of `rows` of matrix %b of %out (v: reflector row %j, w: %w of
    type `scratch`), over the vectors from %s on."""
    memref, vector = layout.memref, layout.vector
    lines = []
    for u, row in enumerate(rows):
        lines += [f"%vi{u} = memref.load %out[%b, %j, {row}] : {memref}",
                  f"%wi{u} = memref.load %w[{row}] : {scratch}",
                  f"%nvi{u} = arith.negf %vi{u} : f32",
                  f"%nwi{u} = arith.negf %wi{u} : f32",
                  f"%vv{u} = vector.broadcast %nvi{u} : f32 to {vector}",
                  f"%wv{u} = vector.broadcast %nwi{u} : f32 to {vector}"]
    return [
        *lines,
        "scf.for %c = %s to %width step %lanes {",
        f"%wc = vector.load %w[%c] : {scratch}, {vector}",
        f"%vc = vector.load %out[%b, %j, %c] : {memref}, {vector}",
        *(line for u, row in enumerate(rows) for line in (
            f"%x{u} = vector.load %out[%b, {row}, %c] : {memref}, {vector}",
            f"%y{u} = vector.fma %vv{u}, %wc, %x{u} : {vector}",
            f"%z{u} = vector.fma %wv{u}, %vc, %y{u} : {vector}",
            f"vector.store %z{u}, %out[%b, {row}, %c] : {memref}, {vector}")),
        "}",
    ]


def _tridiagonal_step(memref: str, diag: str) -> list[str]:
    """Lines opening a reduction to tridiagonal form's loop over the columns j (%j1, %j2: j + 1, j + 2), and
    storing the diagonal entry j (the real part of a complex one: a row's first half) in %d as f64."""
    return ["scf.for %j = %c0 to %last step %c1 {",
            "%j1 = arith.addi %j, %c1 : index",
            "%j2 = arith.addi %j, %c2 : index",
            f"%dj = memref.load %out[%b, %j, %j] : {memref}",
            "%dj64 = arith.extf %dj : f32 to f64",
            f"memref.store %dj64, %d[%b, %j] : {diag}"]


def _tridiagonal_end(memref: str, diag: str) -> list[str]:
    """Lines storing, after a reduction to tridiagonal form's loop, its last diagonal entry (a real part) in %d
    as f64, and 0 as the last subdiagonal one in %e."""
    return [f"%d_last = memref.load %out[%b, %last, %last] : {memref}",
            "%d_last64 = arith.extf %d_last : f32 to f64",
            f"memref.store %d_last64, %d[%b, %last] : {diag}",
            f"memref.store %zero64, %e[%b, %last] : {diag}"]


def _tridiagonal(layout: _Layout, diag: str, scratch: str, taus: str | None) -> list[str]:
    """Lines reducing matrix %b of %out (symmetric, both triangles held) to tridiagonal form by Householder
    reflectors from both sides, as LAPACK's sytd2 for a lower triangle orders the work: for each column j,
    the reflector of its entries below the diagonal (read from row j), p = tau A v over the rows after j
    (into %w, a row of type `scratch`), w = p - tau/2 (p^T v) v, and those rows less v w^T + w v^T. The
    diagonal goes to %d, the subdiagonal to %e (f64 memrefs of type `diag`, e's last entry 0); row j keeps
    reflector j, and %taus (of type `taus`, where given) its tau."""
    memref, vector, row = layout.memref, layout.vector, scratch
    return [
        *_tridiagonal_step(memref, diag),
        *_row_reflector("", memref),
        "%made64 = arith.extf %made : f32 to f64",
        f"memref.store %made64, %e[%b, %j] : {diag}",
        *([f"memref.store %tau, %taus[%j] : {taus}"] if taus else []),
        "%reflect = arith.cmpf une, %tau, %zero : f32",
        "scf.if %reflect {",
        *_vector_start("s", "%j1"),
        "scf.for %c = %c0 to %width step %lanes {",
        f"vector.store %zeros, %w[%c] : {row}, {vector}",
        "}",
        *_in_groups("p", "%j1", "%n", lambda rows: _products(rows, row, layout)),
        f"%pv_parts = scf.for %c = %s to %width step %lanes iter_args(%part = %zeros) -> ({vector}) {{",
        f"%x = vector.load %w[%c] : {row}, {vector}",
        f"%v = vector.load %out[%b, %j, %c] : {memref}, {vector}",
        f"%y = vector.fma %x, %v, %part : {vector}",
        f"scf.yield %y : {vector}",
        "}",
        f"%pv = vector.reduction <add>, %pv_parts : {vector} into f32",
        "%ht = arith.mulf %tau, %minus_half : f32",
        "%k = arith.mulf %ht, %pv : f32",
        f"%kv = vector.broadcast %k : f32 to {vector}",
        "scf.for %c = %s to %width step %lanes {",
        f"%x = vector.load %w[%c] : {row}, {vector}",
        f"%v = vector.load %out[%b, %j, %c] : {memref}, {vector}",
        f"%y = vector.fma %kv, %v, %x : {vector}",
        f"vector.store %y, %w[%c] : {row}, {vector}",
        "}",
        *_in_groups("u", "%j1", "%n", lambda rows: _rank_two_update(rows, row, layout)),
        "}",
        "}",
        *_tridiagonal_end(memref, diag),
    ]


def _split_point(diag: str, squared: bool) -> list[str]:
    """Lines defining %split_at, the first index from %l on whose subdiagonal entry is negligible next to its two
    diagonal ones (|e| + |d_m| + |d_m+1| == |d_m| + |d_m+1| in f64, or below FLOOR), else %last. Where
    `squared`, %e holds the entries' squares, and the test is e^2 <= (2^-53 (|d_m| + |d_m+1|))^2 (at least
    as loose: 2^-53 is half an ulp of 1) or e^2 below FLOOR."""
    test = [
        "%half_ulp = arith.mulf %dd, %unit_roundoff : f64",
        "%bound = arith.mulf %half_ulp, %half_ulp : f64",
        "%same = arith.cmpf ole, %ek, %bound : f64",
        "%tiny = arith.cmpf olt, %ek, %floor : f64",
    ] if squared else [
        "%ae = math.absf %ek : f64",
        "%sum = arith.addf %ae, %dd : f64",
        "%same = arith.cmpf oeq, %sum, %dd : f64",
        "%tiny = arith.cmpf olt, %ae, %floor : f64",
    ]
    return [
        "%split_at = scf.for %k = %l to %last step %c1 iter_args(%at = %last) -> (index) {",
        "%k1 = arith.addi %k, %c1 : index",
        f"%ek = memref.load %e[%b, %k] : {diag}",
        f"%dk = memref.load %d[%b, %k] : {diag}",
        f"%dk1 = memref.load %d[%b, %k1] : {diag}",
        "%ad = math.absf %dk : f64",
        "%ad1 = math.absf %dk1 : f64",
        "%dd = arith.addf %ad, %ad1 : f64",
        *test,
        "%small = arith.ori %same, %tiny : i1",
        "%open = arith.cmpi eq, %at, %last : index",
        "%take = arith.andi %small, %open : i1",
        "%at1 = arith.select %take, %k, %at : index",
        "scf.yield %at1 : index",
        "}",
    ]


def _rotate_rows(layout: _Layout) -> list[str]:
    """Lines applying the rotation (%cos1, %sin1) to rows %i and %i1 of matrix %b of %vecs (the columns i
    and i + 1 of the tridiagonal matrix's eigenvectors): c r_i - s r_i+1 and s r_i + c r_i+1. The next
    rotation turns row i again, while it is still in cache."""
    memref, vector = layout.memref, layout.vector
    return [
        "%cf = arith.truncf %cos1 : f64 to f32",
        "%sf = arith.truncf %sin1 : f64 to f32",
        "%nsf = arith.negf %sf : f32",
        f"%cv = vector.broadcast %cf : f32 to {vector}",
        f"%sv = vector.broadcast %sf : f32 to {vector}",
        f"%nsv = vector.broadcast %nsf : f32 to {vector}",
        "scf.for %col = %c0 to %width step %lanes {",
        f"%zi = vector.load %vecs[%b, %i, %col] : {memref}, {vector}",
        f"%zj = vector.load %vecs[%b, %i1, %col] : {memref}, {vector}",
        f"%t1 = arith.mulf %cv, %zj : {vector}",
        f"%n1 = vector.fma %sv, %zi, %t1 : {vector}",
        f"%t0 = arith.mulf %nsv, %zj : {vector}",
        f"%n0 = vector.fma %cv, %zi, %t0 : {vector}",
        f"vector.store %n1, %vecs[%b, %i1, %col] : {memref}, {vector}",
        f"vector.store %n0, %vecs[%b, %i, %col] : {memref}, {vector}",
        "}",
    ]


def _shift(diag: str, off: str) -> list[str]:
    """Lines loading %dl and %dl1 (the block's first two diagonal entries) and defining %q = off / (g +
    sign(g) sqrt(g^2 + 1)), g = (d_l+1 - d_l) / 2 off: the QL step's Wilkinson shift is d_l - q (`off` the
    block's first subdiagonal entry)."""
    return [
        "%l1 = arith.addi %l, %c1 : index",
        f"%dl = memref.load %d[%b, %l] : {diag}",
        f"%dl1 = memref.load %d[%b, %l1] : {diag}",
        "%diff = arith.subf %dl1, %dl : f64",
        f"%twice = arith.mulf {off}, %two64 : f64",
        "%g0 = arith.divf %diff, %twice : f64",
        "%g0sq = math.fma %g0, %g0, %unit64 : f64",
        "%r0 = math.sqrt %g0sq : f64",
        "%nr0 = arith.negf %r0 : f64",
        "%gpos = arith.cmpf oge, %g0, %zero64 : f64",
        "%sr = arith.select %gpos, %r0, %nr0 : f64",
        "%den = arith.addf %g0, %sr : f64",
        f"%q = arith.divf {off}, %den : f64",
    ]


def _ql_step(diag: str, layout: _Layout | None) -> list[str]:
    """Lines of one implicit QL step with Wilkinson's shift on the block from %l to %mm of the tridiagonal
    matrix in %d and %e (f64 memrefs of type `diag`), as EISPACK's tql1/tql2 order it: Givens rotations
    chase the bulge from mm up to l. A rotation of zero length (an exact split) ends the step early, as
    tql2 does. Where `layout`, each rotation also turns the rows of %vecs (the eigenvectors as rows)."""
    f64 = "f64, f64, f64, f64, i1"
    return [
        f"%el = memref.load %e[%b, %l] : {diag}",
        *_shift(diag, "%el"),
        f"%dm = memref.load %d[%b, %mm] : {diag}",
        "%gap = arith.subf %dm, %dl : f64",
        "%g1 = arith.addf %gap, %q : f64",
        "%steps = arith.subi %mm, %l : index",
        f"%run:5 = scf.for %k = %c0 to %steps step %c1 iter_args(%sin = %unit64, %cos = %unit64, %p = %zero64, "
        f"%g = %g1, %stop = %false) -> ({f64}) {{",
        f"%next:5 = scf.if %stop -> ({f64}) {{",
        f"scf.yield %sin, %cos, %p, %g, %stop : {f64}",
        "} else {",
        "%i1 = arith.subi %mm, %k : index",
        "%i = arith.subi %i1, %c1 : index",
        f"%ei = memref.load %e[%b, %i] : {diag}",
        "%f = arith.mulf %sin, %ei : f64",
        "%bb = arith.mulf %cos, %ei : f64",
        "%gg2 = arith.mulf %g, %g : f64",
        "%r2 = math.fma %f, %f, %gg2 : f64",
        "%r = math.sqrt %r2 : f64",
        f"memref.store %r, %e[%b, %i1] : {diag}",
        "%split = arith.cmpf oeq, %r, %zero64 : f64",
        f"%turned:5 = scf.if %split -> ({f64}) {{",
        f"%dz = memref.load %d[%b, %i1] : {diag}",
        "%dzp = arith.subf %dz, %p : f64",
        f"memref.store %dzp, %d[%b, %i1] : {diag}",
        f"memref.store %zero64, %e[%b, %mm] : {diag}",
        f"scf.yield %sin, %cos, %p, %g, %true : {f64}",
        "} else {",
        "%sin1 = arith.divf %f, %r : f64",
        "%cos1 = arith.divf %g, %r : f64",
        f"%di1 = memref.load %d[%b, %i1] : {diag}",
        "%h = arith.subf %di1, %p : f64",
        f"%di = memref.load %d[%b, %i] : {diag}",
        "%t = arith.subf %di, %h : f64",
        "%ts = arith.mulf %t, %sin1 : f64",
        "%cb = arith.mulf %cos1, %bb : f64",
        "%rr = math.fma %cb, %two64, %ts : f64",
        "%p1 = arith.mulf %sin1, %rr : f64",
        "%dn = arith.addf %h, %p1 : f64",
        f"memref.store %dn, %d[%b, %i1] : {diag}",
        "%cr = arith.mulf %cos1, %rr : f64",
        "%g2 = arith.subf %cr, %bb : f64",
        *(_rotate_rows(layout) if layout else []),
        f"scf.yield %sin1, %cos1, %p1, %g2, %stop : {f64}",
        "}",
        f"scf.yield {', '.join(f'%turned#{k}' for k in range(5))} : {f64}",
        "}",
        f"scf.yield {', '.join(f'%next#{k}' for k in range(5))} : {f64}",
        "}",
        "%whole = arith.xori %run#4, %true : i1",
        "scf.if %whole {",
        f"%dl2 = memref.load %d[%b, %l] : {diag}",
        "%dl3 = arith.subf %dl2, %run#2 : f64",
        f"memref.store %dl3, %d[%b, %l] : {diag}",
        f"memref.store %run#3, %e[%b, %l] : {diag}",
        f"memref.store %zero64, %e[%b, %mm] : {diag}",
        "}",
    ]


def _sorted(diag: str, layout: _Layout | None, descending: bool) -> list[str]:
    """Lines sorting %d[%b] (an f64 memref of type `diag`, %n values) ascending (or `descending`) by selection,
    and where `layout`, the rows of %vecs with them: the kernels' callers then need no sort (IREE's took 73
    us for 128 values, 28 more to move the vectors' rows after it; the selection takes n^2 / 2 compares)."""
    order = "ogt" if descending else "olt"
    swap_rows = [] if layout is None else [
        "scf.for %col = %c0 to %width step %lanes {",
        f"%ri = vector.load %vecs[%b, %i, %col] : {layout.memref}, {layout.vector}",
        f"%rj = vector.load %vecs[%b, %best#0, %col] : {layout.memref}, {layout.vector}",
        f"vector.store %rj, %vecs[%b, %i, %col] : {layout.memref}, {layout.vector}",
        f"vector.store %ri, %vecs[%b, %best#0, %col] : {layout.memref}, {layout.vector}",
        "}",
    ]
    return [
        "scf.for %i = %c0 to %n step %c1 {",
        f"%di = memref.load %d[%b, %i] : {diag}",
        "%after = arith.addi %i, %c1 : index",
        "%best:2 = scf.for %k = %after to %n step %c1 iter_args(%at = %i, %v = %di) -> (index, f64) {",
        f"%dk = memref.load %d[%b, %k] : {diag}",
        f"%better = arith.cmpf {order}, %dk, %v : f64",
        "%at1 = arith.select %better, %k, %at : index",
        "%v1 = arith.select %better, %dk, %v : f64",
        "scf.yield %at1, %v1 : index, f64",
        "}",
        "%moved = arith.cmpi ne, %best#0, %i : index",
        "scf.if %moved {",
        f"memref.store %best#1, %d[%b, %i] : {diag}",
        f"memref.store %di, %d[%b, %best#0] : {diag}",
        *swap_rows,
        "}",
        "}",
    ]


def _root_free_ql_step(diag: str) -> list[str]:
    """Lines of one QL step without square roots (Pal, Walker and Kahan's, as LAPACK's dsterf orders it) on
    the block from %l to %mm of the tridiagonal matrix in %d and in %e as squares (f64 memrefs of type
    `diag`): the same shift as _ql_step's, and rotations carried as c^2 and s^2, one division by their
    length a rotation (values only: _ql_step's rotations each took a square root and two divisions, one
    after another, three quarters of eigvalsh of f32[128,128])."""
    state = "f64, f64, f64, f64"
    return [
        f"%el = memref.load %e[%b, %l] : {diag}",
        "%rte = math.sqrt %el : f64",
        *_shift(diag, "%rte"),
        "%sigma = arith.subf %dl, %q : f64",
        f"%dm = memref.load %d[%b, %mm] : {diag}",
        "%gamma0 = arith.subf %dm, %sigma : f64",
        "%pp0 = arith.mulf %gamma0, %gamma0 : f64",
        "%steps = arith.subi %mm, %l : index",
        f"%run:4 = scf.for %k = %c0 to %steps step %c1 iter_args(%s = %zero64, %c = %unit64, %p = %pp0, "
        f"%gamma = %gamma0) -> ({state}) {{",
        "%i1 = arith.subi %mm, %k : index",
        "%i = arith.subi %i1, %c1 : index",
        f"%bb = memref.load %e[%b, %i] : {diag}",
        "%r = arith.addf %p, %bb : f64",
        "%later = arith.cmpi ne, %k, %c0 : index",
        "scf.if %later {",
        "%sr1 = arith.mulf %s, %r : f64",
        f"memref.store %sr1, %e[%b, %i1] : {diag}",
        "}",
        "%inv = arith.divf %unit64, %r : f64",
        "%c1n = arith.mulf %p, %inv : f64",
        "%s1 = arith.mulf %bb, %inv : f64",
        f"%alpha = memref.load %d[%b, %i] : {diag}",
        "%shifted = arith.subf %alpha, %sigma : f64",
        "%sg = arith.mulf %s1, %gamma : f64",
        "%cs = arith.mulf %c1n, %shifted : f64",
        "%gamma1 = arith.subf %cs, %sg : f64",
        "%moved = arith.subf %alpha, %gamma1 : f64",
        "%dn = arith.addf %gamma, %moved : f64",
        f"memref.store %dn, %d[%b, %i1] : {diag}",
        "%gg = arith.mulf %gamma1, %gamma1 : f64",
        "%pc = arith.divf %gg, %c1n : f64",
        "%pb = arith.mulf %c, %bb : f64",
        "%cz = arith.cmpf one, %c1n, %zero64 : f64",
        "%p1 = arith.select %cz, %pc, %pb : f64",
        f"scf.yield %s1, %c1n, %p1, %gamma1 : {state}",
        "}",
        "%sp = arith.mulf %run#0, %run#2 : f64",
        f"memref.store %sp, %e[%b, %l] : {diag}",
        "%dl_next = arith.addf %sigma, %run#3 : f64",
        f"memref.store %dl_next, %d[%b, %l] : {diag}",
    ]


def _squared_subdiagonal(diag: str) -> list[str]:
    """Lines squaring %e's entries in place (for _root_free_ql_step)."""
    return [
        "scf.for %i = %c0 to %n step %c1 {",
        f"%ei = memref.load %e[%b, %i] : {diag}",
        "%e2 = arith.mulf %ei, %ei : f64",
        f"memref.store %e2, %e[%b, %i] : {diag}",
        "}",
    ]


# QL steps one eigenvalue may take before the kernel gives up on it and counts it in info (EISPACK's 30).
QL_STEPS = 30
# A subdiagonal entry below this is zero, whatever the diagonal: the matrices' entries come from f32 ones, or
# their products (B^T B's), all above 1e-90 in magnitude or zero, so only the QL steps' rounding goes below.
FLOOR = 1e-200


def _implicit_ql(diag: str, info: str, layout: _Layout | None) -> list[str]:
    """Lines finding the eigenvalues of the tridiagonal matrix in %d and %e (f64 memrefs of type `diag`), one
    from the top at a time, each by implicit QL steps until its subdiagonal entry is negligible, and storing
    in %info[%b] (of type `info`) how many did not converge in QL_STEPS steps. Where `layout`, the steps'
    rotations turn %vecs's rows; else the steps are root-free, on the subdiagonal's squares."""
    return [
        *([] if layout else _squared_subdiagonal(diag)),
        "%failures = scf.for %l = %c0 to %n step %c1 iter_args(%count = %i0) -> (i32) {",
        "%found:2 = scf.while (%step = %c0) : (index) -> (index, index) {",
        *_split_point(diag, squared=layout is None),
        "%apart = arith.cmpi ne, %split_at, %l : index",
        "%room = arith.cmpi ult, %step, %steps_allowed : index",
        "%go = arith.andi %apart, %room : i1",
        "scf.condition(%go) %step, %split_at : index, index",
        "} do {",
        "^bb0(%taken: index, %mm: index):",
        *(_ql_step(diag, layout) if layout else _root_free_ql_step(diag)),
        "%taken1 = arith.addi %taken, %c1 : index",
        "scf.yield %taken1 : index",
        "}",
        "%failed = arith.cmpi ne, %found#1, %l : index",
        "%missed = arith.extui %failed : i1 to i32",
        "%count1 = arith.addi %count, %missed : i32",
        "scf.yield %count1 : i32",
        "}",
        f"memref.store %failures, %info[%b] : {info}",
    ]


def _reflected_rows(matrix: str, rows: list[str], minus_tau: str, layout: _Layout) -> list[str]:
    """Lines taking tau (r . v) v from each of `rows` r of matrix %b of `matrix` (v: reflector row %j of
    %out; `minus_tau`: -tau), over the vectors from %s on."""
    memref, vector = layout.memref, layout.vector
    return [
        *_row_dots(matrix, rows, "%s", layout),
        *(line for u in range(len(rows)) for line in (
            f"%f{u} = arith.mulf %dot{u}, {minus_tau} : f32",
            f"%fv{u} = vector.broadcast %f{u} : f32 to {vector}")),
        "scf.for %c = %s to %width step %lanes {",
        f"%v = vector.load %out[%b, %j, %c] : {memref}, {vector}",
        *(line for u, row in enumerate(rows) for line in (
            f"%x{u} = vector.load {matrix}[%b, {row}, %c] : {memref}, {vector}",
            f"%y{u} = vector.fma %fv{u}, %v, %x{u} : {vector}",
            f"vector.store %y{u}, {matrix}[%b, {row}, %c] : {memref}, {vector}")),
        "}",
    ]


def _reflectors_transposed(layout: _Layout, taus: str) -> list[str]:
    """Lines turning the identity in %vecs into Q^T = H_{n-2} ... H_0, Q the product of the reduction's
    reflectors (%out's rows): from the right, H_{n-2} first, each row r less tau (r . v) v. Rows and
    columns before reflector j's first entry are still the identity's then, so it only touches those
    after it (LAPACK's orgtr saves the same work)."""
    return [
        "scf.for %t = %c0 to %last step %c1 {",
        "%jr = arith.subi %last, %t : index",
        "%j = arith.subi %jr, %c1 : index",
        f"%tau = memref.load %taus[%j] : {taus}",
        "%reflect = arith.cmpf une, %tau, %zero : f32",
        "scf.if %reflect {",
        "%ntau = arith.negf %tau : f32",
        *_vector_start("s", "%jr"),
        *_in_groups("r", "%jr", "%n", lambda rows: _reflected_rows("%vecs", rows, "%ntau", layout)),
        "}",
        "}",
    ]


def _ql_constants(vector: str) -> list[str]:
    """Lines defining the constants the reductions and _implicit_ql use besides _constants'."""
    return [f"%zeros = arith.constant dense<0.0> : {vector}",
            "%unit64 = arith.constant 1.0 : f64",
            "%two64 = arith.constant 2.0 : f64",
            f"%floor = arith.constant {FLOOR:e} : f64",
            f"%unit_roundoff = arith.constant {2.0 ** -53!r} : f64",
            "%true = arith.constant true",
            "%false = arith.constant false"]


def symmetric_eigen_executable(symbol: str, batch: int, n: int, lanes: int, vectors: bool) -> str:
    """The symmetric eigen kernel for `batch` f32 matrices [n, n] (both triangles), zero padded to [n, w]:
    the matrix it works on, the eigenvalues ascending [batch, n] and the subdiagonal it leaves (f64), info
    [batch] (eigenvalues that did not converge), and where `vectors` the eigenvectors as rows [batch, n, w],
    each row's eigenvalue the one at its index. The matrix is reduced to tridiagonal form in f32, as LAPACK's
    ssytrd does, and its eigenvalues found by implicit QL in f64; the eigenvectors are the QL rotations
    accumulated from the identity in f32, then the reduction's reflectors applied to them."""
    width = _padded(n, lanes)
    layout = _Layout(f"memref<{batch}x{n}x{width}xf32>", lanes)
    memref, vector = layout.memref, layout.vector
    diag, info = f"memref<{batch}x{n}xf64>", f"memref<{batch}xi32>"
    taus = f"memref<{n}xf32>" if vectors else None
    bindings = [("in", memref), ("out", memref), ("d", diag), ("e", diag), ("info", info)]
    identity = []
    if vectors:
        bindings.append(("vecs", memref))
        identity = ["scf.for %i = %c0 to %n step %c1 {",
                    "scf.for %c = %c0 to %width step %lanes {",
                    f"vector.store %zeros, %vecs[%b, %i, %c] : {memref}, {vector}",
                    "}",
                    f"memref.store %unit, %vecs[%b, %i, %i] : {memref}",
                    "}"]
    return "\n".join([
        *executable_header(symbol, batch, bindings),
        *_constants(lanes, n=n, last=n - 1, width=width, steps_allowed=QL_STEPS),
        *_ql_constants(vector),
        "%minus_half = arith.constant -0.5 : f32",
        f"%w = memref.alloca() alignment = 64 : memref<{width}xf32>",
        *([f"%taus = memref.alloca() alignment = 64 : {taus}"] if taus else []),
        *_copy("%n", "%width", memref, vector),
        *_tridiagonal(layout, diag, f"memref<{width}xf32>", taus),
        *identity,
        *(_reflectors_transposed(layout, taus) if taus else []),
        *_implicit_ql(diag, info, layout if vectors else None),
        *_sorted(diag, layout if vectors else None, descending=False),
        *FOOTER,
    ])


def _complex_row_reflector(p: str, memref: str) -> list[str]:
    """Lines making zlarfg's reflector (see _complex_larfg, prefixed `p`) of the conjugates of row %j of matrix
    %b of %out right of the diagonal (a Hermitian matrix's column j below it; what makes a row real from
    the right), with row j becoming conj(v): zeros up to column j, 1 at j + 1, after it its entries times
    conj(1 / (alpha - beta)) (%j1, %j2: j + 1, j + 2; rows of [re | im] halves of %half columns up to %n)."""
    return [
        *_complex_entry(f"{p}al", "%j", "%j1", memref),
        f"%{p}alc = arith.negf %{p}ali : f32",
        f"%{p}tail = scf.for %{p}q = %j2 to %n step %c1 iter_args(%{p}sum = %zero64) -> (f64) {{",
        *_complex_entry(f"{p}t", "%j", f"%{p}q", memref),
        *(f"%{p}t{part}64 = arith.extf %{p}t{part} : f32 to f64" for part in "ri"),
        f"%{p}sum1 = math.fma %{p}tr64, %{p}tr64, %{p}sum : f64",
        f"%{p}sum2 = math.fma %{p}ti64, %{p}ti64, %{p}sum1 : f64",
        f"scf.yield %{p}sum2 : f64",
        "}",
        *_complex_larfg(p, (f"%{p}alr", f"%{p}alc"), f"%{p}tail"),
        f"%{p}sc = arith.negf %{p}si : f64",
        f"scf.for %{p}c = %c0 to %j1 step %c1 {{",
        f"%{p}cq = arith.addi %{p}c, %half : index",
        f"memref.store %zero, %out[%b, %j, %{p}c] : {memref}",
        f"memref.store %zero, %out[%b, %j, %{p}cq] : {memref}",
        "}",
        f"memref.store %unit, %out[%b, %j, %j1] : {memref}",
        f"memref.store %zero, %out[%b, %j, %{p}alq] : {memref}",
        f"scf.for %{p}c = %j2 to %n step %c1 {{",
        *_scaled_entry(f"{p}y", "%j", f"%{p}c", memref, (f"%{p}sr", f"%{p}sc")),
        "}",
    ]


def _complex_reflected_rows(rows: list[tuple[str, str]], tau: tuple[str, str], memref: str, vector: str) -> list[str]:
    """Lines taking tau (r . v) conj(v) from each of `rows` r (_row_access pairs), conj(v) row %j of %out, over
    the columns from %s on (v is zero left of it): the rows times I - tau v v^H from the right."""
    u_row = _row_access(memref, "out", "%j", vector)
    lines = _complex_dots("rd", u_row[0], [load for load, _ in rows], "%half", vector, "%s")
    for u, row in enumerate(rows):
        lines += [*_complex_times(f"rf{u}_", tau, (f"%rdre{u}", f"%rdim{u}")),
                  *_less_complex_multiple(f"rl{u}_", f"%rf{u}_r", f"%rf{u}_i", u_row, row, "%half", vector, "%s")]
    return lines


def _hermitian_tridiagonal(memref: str, vector: str, diag: str, taus: str, scratch: str) -> list[str]:
    """Lines reducing complex Hermitian matrix %b of %out (rows of [re | im] halves of %half columns, the
    whole matrix held) to real tridiagonal form T = Q^H A Q, as LAPACK's chetd2 for a lower triangle orders
    the work: for each column j, zlarfg's reflector H = I - tau v v^H of its entries below the diagonal
    (the conjugates of row j's right of it; beta real), x = tau A v over the rows after j (conj(x) into %w,
    a row of type `scratch`), w = x - tau/2 (x^H v) v, and those rows less v w^H + w v^H. The diagonal's
    real parts go to %d, the betas to %e (f64 memrefs of type `diag`, e's last entry 0); row j keeps conj(v),
    and %taus (of type `taus`) tau's parts."""
    u_row, w_row = _row_access(memref, "out", "%j", vector), _scratch_access(scratch, vector)

    def products(rows: list[str]) -> list[str]:  # conj(x_i) = conj(tau (A v)_i) into %w, (A v)_i = conj(u) . row i
        lines = _complex_dots("mv", u_row[0], [_row_access(memref, "out", r, vector)[0] for r in rows], "%half",
                              vector, "%s")
        for u, r in enumerate(rows):
            lines += [*_complex_times(f"x{u}_", ("%htaur", "%htaui"), (f"%mvre{u}", f"%mvim{u}")),
                      f"%x{u}_c = arith.negf %x{u}_i : f32",
                      f"%x{u}_q = arith.addi {r}, %half : index",
                      f"memref.store %x{u}_r, %w[{r}] : {scratch}",
                      f"memref.store %x{u}_c, %w[%x{u}_q] : {scratch}"]
        return lines

    return [
        *_tridiagonal_step(memref, diag),
        *_complex_row_reflector("h", memref),
        "%made64 = arith.extf %hmadr : f32 to f64",
        f"memref.store %made64, %e[%b, %j] : {diag}",
        f"memref.store %htaur, %taus[%j, %c0] : {taus}",
        f"memref.store %htaui, %taus[%j, %c1] : {taus}",
        *_complex_nonzero("reflect", ("%htaur", "%htaui")),
        "scf.if %reflect {",
        *_vector_start("s", "%j1"),
        "scf.for %c = %c0 to %width step %lanes {",
        f"vector.store %zeros, %w[%c] : {scratch}, {vector}",
        "}",
        *_in_groups("p", "%j1", "%n", products),
        # alpha = -tau/2 (x^H v) = -tau/2 (conj(u) . conj(x)); conj(w) = conj(x) + conj(alpha) u.
        *_complex_dots("xv", u_row[0], [w_row[0]], "%half", vector, "%s"),
        *_complex_times("k", ("%htaur", "%htaui"), ("%xvre0", "%xvim0")),
        "%hkr = arith.mulf %kr, %half_negated : f32",
        "%hki = arith.mulf %ki, %half_negated : f32",
        "%nhkr = arith.negf %hkr : f32",
        *_less_complex_multiple("cw", "%nhkr", "%hki", u_row, w_row, "%half", vector, "%s"),
        # Each row i after j less v_i conj(w) + w_i conj(v): v_i = conj(u_i), w_i = conj(%w's entry i).
        "scf.for %i = %j1 to %n step %c1 {",
        *_complex_entry("ui", "%j", "%i", memref),
        "%uic = arith.negf %uii : f32",
        f"%wir = memref.load %w[%i] : {scratch}",
        f"%wii0 = memref.load %w[%uiq] : {scratch}",
        "%wii = arith.negf %wii0 : f32",
        *_less_complex_multiples("up", [("%uir", "%uic", w_row[0]), ("%wir", "%wii", u_row[0])],
                                 _row_access(memref, "out", "%i", vector), "%half", vector, "%s"),
        "}",
        "}",
        "}",
        *_tridiagonal_end(memref, diag),
    ]


def _hermitian_reflectors_adjoint(memref: str, vector: str, taus: str) -> list[str]:
    """Lines turning the identity in %vecs into Q^H = H_{n-2}^H ... H_0^H, Q the product of the complex
    reduction's reflectors (%out's rows hold conj(v)): from the right, H_{n-2}^H first, each row r less
    conj(tau) (r . v) conj(v); rows and columns before a reflector's first entry are still the identity's
    then, so it only touches those after it (as _reflectors_transposed)."""

    def reflected(rows: list[str]) -> list[str]:
        return _complex_reflected_rows([_row_access(memref, "vecs", r, vector) for r in rows], ("%taur", "%ctaui"),
                                       memref, vector)

    return [
        "scf.for %i = %c0 to %n step %c1 {",
        "scf.for %c = %c0 to %width step %lanes {",
        f"vector.store %zeros, %vecs[%b, %i, %c] : {memref}, {vector}",
        "}",
        f"memref.store %unit, %vecs[%b, %i, %i] : {memref}",
        "}",
        "scf.for %t = %c0 to %last step %c1 {",
        "%jr = arith.subi %last, %t : index",
        "%j = arith.subi %jr, %c1 : index",
        f"%taur = memref.load %taus[%j, %c0] : {taus}",
        f"%taui = memref.load %taus[%j, %c1] : {taus}",
        *_complex_nonzero("reflect", ("%taur", "%taui")),
        "scf.if %reflect {",
        "%ctaui = arith.negf %taui : f32",
        *_vector_start("s", "%jr"),
        *_in_groups("r", "%jr", "%n", reflected),
        "}",
        "}",
    ]


def hermitian_eigen_executable(symbol: str, batch: int, n: int, lanes: int, vectors: bool) -> str:
    """symmetric_eigen_executable for `batch` complex<f32> Hermitian matrices [n, n] held as f32 rows of
    [re | im] halves, each zero padded to w columns: the reduction to real tridiagonal form by complex
    reflectors (chetd2's), then the same implicit QL in f64; where `vectors`, the QL rotations turn the rows
    of Q^H, which become the eigenvectors' conjugates [batch, n, 2 w]."""
    half = _padded(n, lanes)
    memref, vector = f"memref<{batch}x{n}x{2 * half}xf32>", f"vector<{lanes}xf32>"
    diag, info = f"memref<{batch}x{n}xf64>", f"memref<{batch}xi32>"
    taus, scratch = f"memref<{n}x2xf32>", f"memref<{2 * half}xf32>"
    bindings = [("in", memref), ("out", memref), ("d", diag), ("e", diag), ("info", info)]
    layout = _Layout(memref, lanes) if vectors else None
    return "\n".join([
        *executable_header(symbol, batch, bindings + ([("vecs", memref)] if vectors else [])),
        *_constants(lanes, n=n, last=n - 1, half=half, width=2 * half, steps_allowed=QL_STEPS),
        *_ql_constants(vector),
        "%half_negated = arith.constant -0.5 : f32",
        f"%w = memref.alloca() alignment = 64 : {scratch}",
        f"%taus = memref.alloca() alignment = 64 : {taus}",
        *_copy("%n", "%width", memref, vector),
        *_hermitian_tridiagonal(memref, vector, diag, taus, scratch),
        *(_hermitian_reflectors_adjoint(memref, vector, taus) if vectors else []),
        *_implicit_ql(diag, info, layout),
        *_sorted(diag, layout, descending=False),
        *FOOTER,
    ])


def _bidiagonal(layout: _Layout, diag: str, scratch: str) -> list[str]:
    """Lines reducing matrix %b of %out ([m, n], m >= n) to upper bidiagonal form B by Householder reflectors
    from both sides, as LAPACK's gebd2 orders the work: for each column j, the reflector of the column from
    the diagonal down applied to the columns right of it (as the QR kernel does, through %w of type
    `scratch`), then, but for the last column, the reflector of row j right of the diagonal applied to the
    rows below it. B's diagonal goes to %d, its superdiagonal to %e (f64 memrefs of type `diag`, e's last
    entry 0)."""
    memref = layout.memref
    return [
        "scf.for %j = %c0 to %n step %c1 {",
        "%j1 = arith.addi %j, %c1 : index",
        "%j2 = arith.addi %j, %c2 : index",
        *_column_reflector("l", memref),
        *_reflection("lh", "%j", f"memref.load %out[%b, {{i}}, %j] : {memref}", "%ltau", "%j1", layout, scratch),
        *_bidiagonal_entries(diag, "%lmade", "%rmade", [
            *_row_reflector("r", memref),
            "%rreflect = arith.cmpf une, %rtau, %zero : f32",
            "scf.if %rreflect {",
            "%nrtau = arith.negf %rtau : f32",
            *_vector_start("s", "%j1"),
            *_in_groups("g", "%j1", "%m", lambda rows: _reflected_rows("%out", rows, "%nrtau", layout)),
            "}"]),
    ]


def _bidiagonal_entries(diag: str, column_made: str, row_made: str, row_reflection: list[str]) -> list[str]:
    """Lines ending a bidiagonal reduction's column j: its reflector's beta `column_made` (f32) into %d, then,
    but for the last column, `row_reflection` (row j's reflector made and applied, in a branch) and its beta
    `row_made` into %e (0 for the last column; f64 memrefs of type `diag`)."""
    return [
        f"%lmade64 = arith.extf {column_made} : f32 to f64",
        f"memref.store %lmade64, %d[%b, %j] : {diag}",
        "%right = arith.cmpi ult, %j1, %n : index",
        "%ej = scf.if %right -> (f64) {",
        *row_reflection,
        f"%rmade64 = arith.extf {row_made} : f32 to f64",
        "scf.yield %rmade64 : f64",
        "} else {",
        "scf.yield %zero64 : f64",
        "}",
        f"memref.store %ej, %e[%b, %j] : {diag}",
        "}",
    ]


def _gram_tridiagonal(diag: str) -> list[str]:
    """Lines turning B's diagonal and superdiagonal in %d and %e (f64 memrefs of type `diag`) into those of
    B^T B, d_i^2 + e_i-1^2 and d_i e_i: its eigenvalues are the squares of B's singular values, and in f64
    their rounding stays below the f32 reduction's (a singular value s is off by about 1e-16 |B|^2 / s)."""
    return [
        "%e_last = scf.for %i = %c0 to %n step %c1 iter_args(%before = %zero64) -> (f64) {",
        f"%di = memref.load %d[%b, %i] : {diag}",
        f"%ei = memref.load %e[%b, %i] : {diag}",
        "%dd = arith.mulf %di, %di : f64",
        "%both = math.fma %before, %before, %dd : f64",
        f"memref.store %both, %d[%b, %i] : {diag}",
        "%de = arith.mulf %di, %ei : f64",
        f"memref.store %de, %e[%b, %i] : {diag}",
        "scf.yield %ei : f64",
        "}",
    ]


def singular_values_executable(symbol: str, batch: int, m: int, n: int, lanes: int) -> str:
    """The singular values kernel for `batch` f32 matrices [m, n] (m >= n) zero padded to [m, w]: the matrix
    it works on, the singular values descending [batch, n] and the subdiagonal it leaves (f64), and info
    [batch] (values that did not converge). The matrix is reduced to bidiagonal form B in f32, as LAPACK's
    sgebrd does; the singular values are the square roots of B^T B's eigenvalues, found by implicit QL in
    f64 (a negative one, from rounding, taken as 0)."""
    width = _padded(n, lanes)
    layout = _Layout(f"memref<{batch}x{m}x{width}xf32>", lanes)
    memref, vector = layout.memref, layout.vector
    diag, info = f"memref<{batch}x{n}xf64>", f"memref<{batch}xi32>"
    return "\n".join([
        *executable_header(symbol, batch, [("in", memref), ("out", memref), ("d", diag), ("e", diag), ("info", info)]),
        *_constants(lanes, m=m, n=n, last=n - 1, width=width, steps_allowed=QL_STEPS),
        *_ql_constants(vector),
        f"%w = memref.alloca() alignment = 64 : memref<{width}xf32>",
        *_copy("%m", "%width", memref, vector),
        *_bidiagonal(layout, diag, f"memref<{width}xf32>"),
        *_bidiagonal_singular_values(diag, info),
        *FOOTER,
    ])


def _bidiagonal_singular_values(diag: str, info: str) -> list[str]:
    """Lines putting in %d the singular values, descending, of the bidiagonal B in %d and %e (f64 memrefs of
    type `diag`): the square roots of B^T B's eigenvalues by root-free QL (a negative one, from rounding,
    taken as 0), and in %info[%b] (of type `info`) how many did not converge."""
    return [
        *_gram_tridiagonal(diag),
        *_implicit_ql(diag, info, None),
        "scf.for %i = %c0 to %n step %c1 {",
        f"%square = memref.load %d[%b, %i] : {diag}",
        "%kept = arith.maximumf %square, %zero64 : f64",
        "%root = math.sqrt %kept : f64",
        f"memref.store %root, %d[%b, %i] : {diag}",
        "}",
        *_sorted(diag, None, descending=True),
    ]


def _complex_bidiagonal(memref: str, vector: str, lanes: int, diag: str, scratch: str) -> list[str]:
    """_bidiagonal for complex matrix %b of %out ([m, n], m >= n, rows of [re | im] halves of %half columns),
    as zgebd2 orders the work: each column's zlarfg reflector H applied as H^H from the left (as the complex
    QR kernel does), then, but for the last column, the reflector of row j's conjugates right of the
    diagonal applied from the right to the rows below. Both make their entry of B real: B's diagonal goes
    to %d, its superdiagonal to %e (f64, e's last entry 0)."""
    rows = [_row_access(memref, "out", "%i", vector)]
    return [
        "scf.for %j = %c0 to %n step %c1 {",
        "%j1 = arith.addi %j, %c1 : index",
        "%j2 = arith.addi %j, %c2 : index",
        *_complex_entry("cl", "%j", "%j", memref),
        "%ltail = scf.for %q = %j1 to %m step %c1 iter_args(%sum = %zero64) -> (f64) {",
        *_complex_entry("ct", "%q", "%j", memref),
        *(f"%ct{part}64 = arith.extf %ct{part} : f32 to f64" for part in "ri"),
        "%sum1 = math.fma %ctr64, %ctr64, %sum : f64",
        "%sum2 = math.fma %cti64, %cti64, %sum1 : f64",
        "scf.yield %sum2 : f64",
        "}",
        *_complex_larfg("l", ("%clr", "%cli"), "%ltail"),
        "scf.for %i = %j1 to %m step %c1 {",
        *_scaled_entry("x", "%i", "%j", memref, ("%lsr", "%lsi")),
        "}",
        "%cltaui = arith.negf %ltaui : f32",
        *_complex_reflection("lh", "%j", "out", "%j", ("%ltaur", "%cltaui"), "%j1", memref, vector, lanes, scratch),
        *_bidiagonal_entries(diag, "%lmadr", "%rmadr", [
            *_complex_row_reflector("r", memref),
            *_complex_nonzero("rreflect", ("%rtaur", "%rtaui")),
            "scf.if %rreflect {",
            *_vector_start("s", "%j1"),
            "scf.for %i = %j1 to %m step %c1 {",
            *_complex_reflected_rows(rows, ("%rtaur", "%rtaui"), memref, vector),
            "}",
            "}"]),
    ]


def complex_singular_values_executable(symbol: str, batch: int, m: int, n: int, lanes: int) -> str:
    """singular_values_executable for `batch` complex<f32> matrices [m, n] (m >= n) held as f32 rows of [re |
    im] halves, each zero padded to w columns: the reduction to real bidiagonal form by complex reflectors
    (zgebd2's), then the same QL on B^T B."""
    half = _padded(n, lanes)
    memref, vector = f"memref<{batch}x{m}x{2 * half}xf32>", f"vector<{lanes}xf32>"
    diag, info = f"memref<{batch}x{n}xf64>", f"memref<{batch}xi32>"
    return "\n".join([
        *executable_header(symbol, batch, [("in", memref), ("out", memref), ("d", diag), ("e", diag), ("info", info)]),
        *_constants(lanes, m=m, n=n, last=n - 1, half=half, width=2 * half, steps_allowed=QL_STEPS),
        *_ql_constants(vector),
        f"%w = memref.alloca() alignment = 64 : memref<{2 * half}xf32>",
        *_copy("%m", "%width", memref, vector),
        *_complex_bidiagonal(memref, vector, lanes, diag, f"memref<{2 * half}xf32>"),
        *_bidiagonal_singular_values(diag, info),
        *FOOTER,
    ])


def _turn_rows(matrix: str, layout: _Layout, width: str, pair: str) -> list[str]:
    """Lines replacing rows %i{pair} and %j{pair} of matrix %b of `matrix` (`width` columns) by cos r_i - sin r_j
    and sin r_i + cos r_j (%cosv{pair}, %sinv{pair}, %nsinv{pair}: those broadcast, and -sin)."""
    memref, vector = layout.memref, layout.vector
    i, j, cos, sin, nsin = (f"%{name}{pair}" for name in ("i", "j", "cosv", "sinv", "nsinv"))
    return [
        f"scf.for %c = %c0 to {width} step %lanes {{",
        f"%xi = vector.load {matrix}[%b, {i}, %c] : {memref}, {vector}",
        f"%xj = vector.load {matrix}[%b, {j}, %c] : {memref}, {vector}",
        f"%ti = arith.mulf {nsin}, %xj : {vector}",
        f"%yi = vector.fma {cos}, %xi, %ti : {vector}",
        f"%tj = arith.mulf {cos}, %xj : {vector}",
        f"%yj = vector.fma {sin}, %xi, %tj : {vector}",
        f"vector.store %yi, {matrix}[%b, {i}, %c] : {memref}, {vector}",
        f"vector.store %yj, {matrix}[%b, {j}, %c] : {memref}, {vector}",
        "}",
    ]


def _turn_complex_rows(matrix: str, layout: _Layout, half: str, pair: str) -> list[str]:
    """_turn_rows of complex rows held as [re | im] halves of `half` columns: r_j first turned by the phase
    (%phrv{pair}, %phiv{pair}) to u, then cos r_i - sin u and sin r_i + cos u."""
    memref, vector = layout.memref, layout.vector
    i, j, cos, sin, nsin, phr, phi = (f"%{name}{pair}" for name in ("i", "j", "cosv", "sinv", "nsinv", "phrv",
                                                                     "phiv"))
    return [
        f"scf.for %c = %c0 to {half} step %lanes {{",
        f"%tc_cq = arith.addi %c, {half} : index",
        *(f"%tc_{name} = vector.load {matrix}[%b, {row}, {at}] : {memref}, {vector}"
          for name, row, at in (("xr", i, "%c"), ("xi", i, "%tc_cq"), ("yr", j, "%c"), ("yi", j, "%tc_cq"))),
        f"%tc_yi_phi = arith.mulf {phi}, %tc_yi : {vector}",
        f"%tc_ur0 = arith.mulf {phr}, %tc_yr : {vector}",
        f"%tc_ur = arith.subf %tc_ur0, %tc_yi_phi : {vector}",
        f"%tc_yr_phi = arith.mulf {phi}, %tc_yr : {vector}",
        f"%tc_ui = vector.fma {phr}, %tc_yi, %tc_yr_phi : {vector}",
        *(line for part in ("r", "i") for line in (
            f"%tc_t{part} = arith.mulf {nsin}, %tc_u{part} : {vector}",
            f"%tc_n{part} = vector.fma {cos}, %tc_x{part}, %tc_t{part} : {vector}",
            f"%tc_s{part} = arith.mulf {cos}, %tc_u{part} : {vector}",
            f"%tc_m{part} = vector.fma {sin}, %tc_x{part}, %tc_s{part} : {vector}")),
        *(f"vector.store %tc_{name}, {matrix}[%b, {row}, {at}] : {memref}, {vector}"
          for name, row, at in (("nr", i, "%c"), ("ni", i, "%tc_cq"), ("mr", j, "%c"), ("mi", j, "%tc_cq"))),
        "}",
    ]


# Disjoint pairs of rows the one-sided Jacobi kernel takes at a time: their sums in one pass over the
# rows, and their rotations' square roots and divisions as lanes of one vector (a pair at a time, they
# kept the divider busy for most of a pair's time).
_PAIRS = "abcd"  # their names in the kernel's lines
JACOBI_PAIRS = len(_PAIRS)


def _rotations(vector: str, complex_rows: bool = False) -> list[str]:
    """Lines of the Hestenes rotations of the JACOBI_PAIRS pairs, as lanes of vectors of f64, from their
    rows' squared norms %na{pair}, %nb{pair} and products %g{pair}: %far{pair} where |g| > eps sqrt(a b)
    (g^2 > eps^2 a b; %eps2), the rotation that makes the rows orthogonal (t the smaller root of t^2 +
    2 zeta t - 1, zeta = (b - a) / 2g; meaningless where not far) broadcast to `vector` as %cosv{pair},
    %sinv{pair}, %nsinv{pair}, and %moved{pair}: far, or the sums not numbers (so that the sweeps go on,
    and info tells). Of `complex_rows`, g = conj(r_i) . r_j has parts %gr{pair}, %gi{pair}; the rotation
    is that of |g|, once r_j is turned by the phase conj(g) / |g|, whose parts go to %phr{pair}, %phi{pair}."""
    lanes, mask = f"vector<{JACOBI_PAIRS}xf64>", f"vector<{JACOBI_PAIRS}xi1>"
    names = ("na", "nb", "gr", "gi") if complex_rows else ("na", "nb", "g")
    lines = [f"%{name}_all = vector.from_elements {', '.join(f'%{name}{pair}' for pair in _PAIRS)} : {lanes}"
             for name in names]
    if complex_rows:
        lines += [f"%gii = arith.mulf %gi_all, %gi_all : {lanes}",
                  f"%g_squared = math.fma %gr_all, %gr_all, %gii : {lanes}",
                  f"%g_all = math.sqrt %g_squared : {lanes}",
                  f"%phr_all = arith.divf %gr_all, %g_all : {lanes}",
                  f"%phi_neg = arith.divf %gi_all, %g_all : {lanes}",
                  f"%phi_all = arith.negf %phi_neg : {lanes}"]
    else:
        lines.append(f"%g_squared = arith.mulf %g_all, %g_all : {lanes}")
    lines += [
        f"%ab = arith.mulf %na_all, %nb_all : {lanes}",
        f"%limit = arith.mulf %ab, %eps2 : {lanes}",
        f"%far = arith.cmpf ogt, %g_squared, %limit : {lanes}",
        f"%odd = arith.cmpf uno, %g_squared, %ab : {lanes}",
        f"%gap = arith.subf %nb_all, %na_all : {lanes}",
        f"%g2 = arith.mulf %g_all, %twos : {lanes}",
        f"%zeta = arith.divf %gap, %g2 : {lanes}",
        f"%zabs = math.absf %zeta : {lanes}",
        f"%z2 = math.fma %zeta, %zeta, %units : {lanes}",
        f"%zr = math.sqrt %z2 : {lanes}",
        f"%den = arith.addf %zabs, %zr : {lanes}",
        f"%up = arith.cmpf oge, %zeta, %noughts : {lanes}",
        f"%sign = arith.select %up, %units, %minus_units : {mask}, {lanes}",
        f"%t = arith.divf %sign, %den : {lanes}",
        f"%t2 = math.fma %t, %t, %units : {lanes}",
        f"%tr = math.sqrt %t2 : {lanes}",
        f"%cos = arith.divf %units, %tr : {lanes}",
        f"%sin = arith.mulf %cos, %t : {lanes}",
    ]
    for n, pair in enumerate(_PAIRS):
        lines += [f"%far{pair} = vector.extract %far[{n}] : i1 from {mask}",
                  f"%odd{pair} = vector.extract %odd[{n}] : i1 from {mask}",
                  f"%moved{pair} = arith.ori %far{pair}, %odd{pair} : i1",
                  f"%cos{pair} = vector.extract %cos[{n}] : f64 from {lanes}",
                  f"%sin{pair} = vector.extract %sin[{n}] : f64 from {lanes}",
                  f"%nsin{pair} = arith.negf %sin{pair} : f64",
                  f"%cosv{pair} = vector.broadcast %cos{pair} : f64 to {vector}",
                  f"%sinv{pair} = vector.broadcast %sin{pair} : f64 to {vector}",
                  f"%nsinv{pair} = vector.broadcast %nsin{pair} : f64 to {vector}"]
        if complex_rows:
            lines += [line for part in ("phr", "phi") for line in (
                f"%{part}{pair} = vector.extract %{part}_all[{n}] : f64 from {lanes}",
                f"%{part}v{pair} = vector.broadcast %{part}{pair} : f64 to {vector}")]
    return lines


def _pair_sums(rows: _Layout, complex_rows: bool) -> list[str]:
    """Lines of the pairs' squared norms and products in one pass over their rows (independent sums):
    %na{pair}, %nb{pair} and %g{pair}, or of `complex_rows` (halves of %width / 2 columns) the parts %gr{pair},
    %gi{pair} of conj(r_i) . r_j."""
    names = ("na", "nb", "gr", "gi") if complex_rows else ("na", "nb", "g")
    count = len(names) * JACOBI_PAIRS
    vector, types = rows.vector, ", ".join([rows.vector] * count)
    accumulators = ", ".join(f"%p{u} = %zeros" for u in range(count))
    end = "%half" if complex_rows else "%width"
    lines = [f"%sums:{count} = scf.for %c = %c0 to {end} step %lanes iter_args({accumulators}) -> ({types}) {{"]
    if complex_rows:
        lines.append("%cq = arith.addi %c, %half : index")
    for n, pair in enumerate(_PAIRS):
        u = len(names) * n
        if not complex_rows:
            lines += [f"%x{pair}i = vector.load %out[%b, %i{pair}, %c] : {rows.memref}, {vector}",
                      f"%x{pair}j = vector.load %out[%b, %j{pair}, %c] : {rows.memref}, {vector}",
                      f"%q{u} = vector.fma %x{pair}i, %x{pair}i, %p{u} : {vector}",
                      f"%q{u + 1} = vector.fma %x{pair}j, %x{pair}j, %p{u + 1} : {vector}",
                      f"%q{u + 2} = vector.fma %x{pair}i, %x{pair}j, %p{u + 2} : {vector}"]
            continue
        lines += [*(f"%x{pair}{name} = vector.load %out[%b, %{row}{pair}, {at}] : {rows.memref}, {vector}"
                    for name, row, at in (("ir", "i", "%c"), ("ii", "i", "%cq"), ("jr", "j", "%c"),
                                          ("ji", "j", "%cq"))),
                  f"%a{u} = vector.fma %x{pair}ir, %x{pair}ir, %p{u} : {vector}",
                  f"%q{u} = vector.fma %x{pair}ii, %x{pair}ii, %a{u} : {vector}",
                  f"%a{u + 1} = vector.fma %x{pair}jr, %x{pair}jr, %p{u + 1} : {vector}",
                  f"%q{u + 1} = vector.fma %x{pair}ji, %x{pair}ji, %a{u + 1} : {vector}",
                  f"%a{u + 2} = vector.fma %x{pair}ir, %x{pair}jr, %p{u + 2} : {vector}",
                  f"%q{u + 2} = vector.fma %x{pair}ii, %x{pair}ji, %a{u + 2} : {vector}",
                  f"%a{u + 3} = vector.fma %x{pair}ir, %x{pair}ji, %p{u + 3} : {vector}",
                  f"%cross{u} = arith.mulf %x{pair}ii, %x{pair}jr : {vector}",
                  f"%q{u + 3} = arith.subf %a{u + 3}, %cross{u} : {vector}"]
    lines += [f"scf.yield {', '.join(f'%q{u}' for u in range(count))} : {types}", "}"]
    for n, pair in enumerate(_PAIRS):
        lines += [f"%{name}{pair} = vector.reduction <add>, %sums#{len(names) * n + u} : {vector} into f64"
                  for u, name in enumerate(names)]
    return lines


def _pair_rotations(rows: _Layout, rotations: _Layout, complex_rows: bool = False) -> list[str]:
    """Lines of one Hestenes step on JACOBI_PAIRS disjoint pairs of rows of %out (laid out as `rows`), (%ia,
    %ja), (%ib, %jb), ...: their squared norms and products in one pass (_pair_sums), their rotations
    (_rotations), and each applied where its pair is far from orthogonal, to the pair and to its rows of
    %rot (laid out as `rotations`; of `complex_rows`, both hold [re | im] halves). Defines %moved: whether
    any pair was rotated or its sums are not numbers."""
    lines = [*_pair_sums(rows, complex_rows), *_rotations(rows.vector, complex_rows)]
    for pair in _PAIRS:
        turns = ([*_turn_complex_rows("%out", rows, "%half", pair),
                  *_turn_complex_rows("%rot", rotations, "%rot_half", pair)] if complex_rows else
                 [*_turn_rows("%out", rows, "%width", pair), *_turn_rows("%rot", rotations, "%rot_width", pair)])
        lines += [f"scf.if %far{pair} {{", *turns, "}"]
    moved = f"%moved{_PAIRS[0]}"
    for n, pair in enumerate(_PAIRS[1:], 2):
        either = "%moved" if n == JACOBI_PAIRS else f"%moved_{n}"
        lines.append(f"{either} = arith.ori {moved}, %moved{pair} : i1")
        moved = either
    return lines


def _round_robin_pair(pair: str, position: str) -> list[str]:
    """Lines defining %i{pair} < %j{pair}, the pair at `position` of round %r of the round-robin (circle)
    schedule of %m rows (%m even): row m - 1 against row r, and (r + p, r - p) mod (m - 1) for p > 0. The
    pairs of a round are disjoint, and the m - 1 rounds hold every pair once."""
    return [
        f"%s{pair} = arith.addi %r, {position} : index",
        f"%u{pair} = arith.remui %s{pair}, %m1 : index",
        f"%d{pair} = arith.addi %r, %m1 : index",
        f"%e{pair} = arith.subi %d{pair}, {position} : index",
        f"%v{pair} = arith.remui %e{pair}, %m1 : index",
        f"%first{pair} = arith.cmpi eq, {position}, %c0 : index",
        f"%w{pair} = arith.select %first{pair}, %m1, %v{pair} : index",
        f"%i{pair} = arith.minui %u{pair}, %w{pair} : index",
        f"%j{pair} = arith.maxui %u{pair}, %w{pair} : index",
    ]


def one_sided_jacobi_executable(symbol: str, batch: int, k: int, m: int, width: int, rot_width: int, lanes: int,
                                eps: float, complex_rows: bool = False) -> str:
    """The one-sided Jacobi kernel for `batch` f64 matrices x [m, width] (rows of a^H, k of them and m - k
    zero rows after them, m a multiple of 2 JACOBI_PAIRS; zero padded to whole vectors of `lanes`): sweeps
    of the round-robin schedule's m - 1 rounds of m / 2 disjoint pairs, JACOBI_PAIRS at a time, each rotated
    (Hestenes) until the pair is orthogonal to eps (a zero row is orthogonal to every row), until a sweep
    rotates none or lapack.MAX_SWEEPS have run. Gives x rotated, the rotations' product [m, rot_width]
    (the identity's rows turned as x's are) and info [batch] (1 where the last sweep still rotated: not
    converged, or not numbers). Of `complex_rows`, x's rows and the rotations' hold complex ones as [re | im]
    halves of width / 2 and rot_width / 2 columns, rotated as _rotations says."""
    rows = _Layout(f"memref<{batch}x{m}x{width}xf64>", lanes, "f64")
    rotations = _Layout(f"memref<{batch}x{m}x{rot_width}xf64>", lanes, "f64")
    info = f"memref<{batch}xi32>"
    return "\n".join([
        *executable_header(symbol, batch, [("in", rows.memref), ("out", rows.memref), ("rot", rotations.memref),
                                           ("info", info)]),
        *_constants(lanes, k=k, m=m, m1=m - 1, pairs=m // 2, width=width, rot_width=rot_width, half=width // 2,
                    rot_half=rot_width // 2, sweeps=lapack.MAX_SWEEPS),
        *_ql_constants(rows.vector),
        f"%eps2 = arith.constant dense<{eps * eps:e}> : vector<{JACOBI_PAIRS}xf64>",
        *(f"%{name} = arith.constant dense<{value}> : vector<{JACOBI_PAIRS}xf64>"
          for name, value in (("units", 1.0), ("minus_units", -1.0), ("twos", 2.0), ("noughts", 0.0))),
        "%one32 = arith.constant 1 : i32",
        *_copy("%m", "%width", rows.memref, rows.vector),
        "scf.for %i = %c0 to %m step %c1 {",
        "scf.for %c = %c0 to %rot_width step %lanes {",
        f"vector.store %zeros, %rot[%b, %i, %c] : {rotations.memref}, {rows.vector}",
        "}",
        "}",
        "scf.for %i = %c0 to %k step %c1 {",
        f"memref.store %unit64, %rot[%b, %i, %i] : {rotations.memref}",
        "}",
        "%last:2 = scf.while (%sweep = %c0, %busy = %true) : (index, i1) -> (index, i1) {",
        "%room = arith.cmpi ult, %sweep, %sweeps : index",
        "%go = arith.andi %busy, %room : i1",
        "scf.condition(%go) %sweep, %busy : index, i1",
        "} do {",
        "^bb0(%done: index, %was: i1):",
        "%any = scf.for %r = %c0 to %m1 step %c1 iter_args(%r0 = %false) -> (i1) {",
        f"%r2 = scf.for %p = %c0 to %pairs step %c{JACOBI_PAIRS} iter_args(%r1 = %r0) -> (i1) {{",
        *(f"%p{pair} = arith.addi %p, %c{n} : index" for n, pair in enumerate(_PAIRS) if n),
        *(line for n, pair in enumerate(_PAIRS) for line in _round_robin_pair(pair, f"%p{pair}" if n else "%p")),
        *_pair_rotations(rows, rotations, complex_rows),
        "%rr = arith.ori %r1, %moved : i1",
        "scf.yield %rr : i1",
        "}",
        "scf.yield %r2 : i1",
        "}",
        "%next = arith.addi %done, %c1 : index",
        "scf.yield %next, %any : index, i1",
        "}",
        "%failed = arith.select %last#1, %one32, %i0 : i32",
        f"memref.store %failed, %info[%b] : {info}",
        *FOOTER,
    ])


def _complex_times(p: str, a: tuple[str, str], b: tuple[str, str], kind: str = "f32") -> list[str]:
    """Lines defining %{p}r and %{p}i, the parts of a b (each given by its parts, of `kind`: f32 or a vector
    of them)."""
    (ar, ai), (br, bi) = a, b
    fma = "vector.fma" if kind.startswith("vector") else "math.fma"
    return [f"%{p}1 = arith.mulf {ar}, {br} : {kind}",
            f"%{p}2 = arith.mulf {ai}, {bi} : {kind}",
            f"%{p}r = arith.subf %{p}1, %{p}2 : {kind}",
            f"%{p}3 = arith.mulf {ar}, {bi} : {kind}",
            f"%{p}i = {fma} {ai}, {br}, %{p}3 : {kind}"]


def _complex_reciprocal(p: str, re: str, im: str) -> list[str]:
    """Lines defining %{p}r and %{p}i, the f32 parts of 1 / (re + i im) = (re - i im) / (re^2 + im^2),
    formed in f64 so that no square overflows or underflows."""
    return [f"%{p}re64 = arith.extf {re} : f32 to f64",
            f"%{p}im64 = arith.extf {im} : f32 to f64",
            f"%{p}rr = arith.mulf %{p}re64, %{p}re64 : f64",
            f"%{p}norm = math.fma %{p}im64, %{p}im64, %{p}rr : f64",
            f"%{p}r64 = arith.divf %{p}re64, %{p}norm : f64",
            f"%{p}in64 = arith.divf %{p}im64, %{p}norm : f64",
            f"%{p}r = arith.truncf %{p}r64 : f64 to f32",
            f"%{p}in = arith.truncf %{p}in64 : f64 to f32",
            f"%{p}i = arith.negf %{p}in : f32"]


def _complex_dots(p: str, k: str, xs: list[str], half: str, vector: str, start: str = "%c0") -> list[str]:
    """Lines defining %{p}re{u} and %{p}im{u}, the parts of the complex inner product conj(k) . x_u of rows held
    as real [p | q] halves of `half` columns (`k` and each of `xs`: loads, formatted with the column c=...),
    for all of `xs` in one pass over the columns from `start` on (a whole vector's first)."""
    group = range(len(xs))
    types = ", ".join([vector] * (2 * len(xs)))
    carried = ", ".join(f"%{p}r{u} = %zeros, %{p}i{u} = %zeros" for u in group)
    lines = [f"%{p}sums:{2 * len(xs)} = scf.for %{p}c = {start} to {half} step %lanes iter_args({carried}) "
             f"-> ({types}) {{",
             f"%{p}cq = arith.addi %{p}c, {half} : index",
             f"%{p}kp = {k.format(c=f'%{p}c')}",
             f"%{p}kq = {k.format(c=f'%{p}cq')}"]
    for u, x in enumerate(xs):
        lines += [f"%{p}xp{u} = {x.format(c=f'%{p}c')}",
                  f"%{p}xq{u} = {x.format(c=f'%{p}cq')}",
                  f"%{p}r{u}a = vector.fma %{p}kp, %{p}xp{u}, %{p}r{u} : {vector}",
                  f"%{p}r{u}b = vector.fma %{p}kq, %{p}xq{u}, %{p}r{u}a : {vector}",
                  f"%{p}i{u}a = vector.fma %{p}kp, %{p}xq{u}, %{p}i{u} : {vector}",
                  f"%{p}kqxp{u} = arith.mulf %{p}kq, %{p}xp{u} : {vector}",
                  f"%{p}i{u}b = arith.subf %{p}i{u}a, %{p}kqxp{u} : {vector}"]
    lines += [f"scf.yield {', '.join(f'%{p}r{u}b, %{p}i{u}b' for u in group)} : {types}", "}"]
    for u in group:
        lines += [f"%{p}re{u} = vector.reduction <add>, %{p}sums#{2 * u} : {vector} into f32",
                  f"%{p}im{u} = vector.reduction <add>, %{p}sums#{2 * u + 1} : {vector} into f32"]
    return lines


def _less_complex_multiple(p: str, re: str, im: str, k: tuple[str, str], x: tuple[str, str], half: str,
                           vector: str, start: str = "%c0") -> list[str]:
    """Lines making the row x (real [p | q] halves of `half` columns: a load and a store formatted with the
    column c=... and, for the store, the value v=...) x - (re + i im) k, over the columns from `start` on (a
    whole vector's first)."""
    return _less_complex_multiples(p, [(re, im, k[0])], x, half, vector, start)


def _less_complex_multiples(p: str, terms: list[tuple[str, str, str]], x: tuple[str, str], half: str, vector: str,
                            start: str = "%c0", mask: str | None = None) -> list[str]:
    """_less_complex_multiple of several terms (re, im, a row's load) in one pass over x, in their order. With
    `mask` (a vector<i1> of the first vector's columns to change), `start`'s vector is done apart: where the
    mask is false it keeps its values; `start` may then be `half`, and nothing changes."""
    load_x, store_x = x
    lines = [line for n, (re, im, _) in enumerate(terms) for line in (
        f"%{p}nre{n} = arith.negf {re} : f32",
        f"%{p}nim{n} = arith.negf {im} : f32",
        f"%{p}nrev{n} = vector.broadcast %{p}nre{n} : f32 to {vector}",
        f"%{p}imv{n} = vector.broadcast {im} : f32 to {vector}",
        f"%{p}nimv{n} = vector.broadcast %{p}nim{n} : f32 to {vector}")]

    def step(q: str, c: str) -> tuple[list[str], str, str]:
        """Lines computing the new halves at column c (q prefixes them), and their names."""
        step_lines = [f"%{q}cq = arith.addi {c}, {half} : index",
                      f"%{q}yp = {load_x.format(c=c)}",
                      f"%{q}yq = {load_x.format(c=f'%{q}cq')}"]
        xp, xq = f"%{q}yp", f"%{q}yq"
        for n, (_, _, load_k) in enumerate(terms):
            step_lines += [f"%{q}kp{n} = {load_k.format(c=c)}",
                           f"%{q}kq{n} = {load_k.format(c=f'%{q}cq')}",
                           f"%{q}p{n}a = vector.fma %{p}nrev{n}, %{q}kp{n}, {xp} : {vector}",
                           f"%{q}p{n}b = vector.fma %{p}imv{n}, %{q}kq{n}, %{q}p{n}a : {vector}",
                           f"%{q}q{n}a = vector.fma %{p}nrev{n}, %{q}kq{n}, {xq} : {vector}",
                           f"%{q}q{n}b = vector.fma %{p}nimv{n}, %{q}kp{n}, %{q}q{n}a : {vector}"]
            xp, xq = f"%{q}p{n}b", f"%{q}q{n}b"
        return step_lines, xp, xq

    first = start
    if mask is not None:
        head, xp, xq = step(f"{p}h", start)
        mask_type = vector.replace("xf32", "xi1")
        lines += [f"%{p}inside = arith.cmpi ult, {start}, {half} : index",
                  f"scf.if %{p}inside {{", *head,
                  f"%{p}hp = arith.select {mask}, {xp}, %{p}hyp : {mask_type}, {vector}",
                  f"%{p}hq = arith.select {mask}, {xq}, %{p}hyq : {mask_type}, {vector}",
                  store_x.format(c=start, v=f"%{p}hp"), store_x.format(c=f"%{p}hcq", v=f"%{p}hq"), "}",
                  f"%{p}next = arith.addi {start}, %lanes : index"]
        first = f"%{p}next"
    body, xp, xq = step(p, f"%{p}c")
    return lines + [f"scf.for %{p}c = {first} to {half} step %lanes {{", *body,
                    store_x.format(c=f"%{p}c", v=xp), store_x.format(c=f"%{p}cq", v=xq), "}"]


def _row_access(memref: str, name: str, row: str, vector: str) -> tuple[str, str]:
    """(load, store) of the vector at column {c} of row `row` of matrix %b of %{name}, as _less_complex_multiple
    takes them."""
    return (f"vector.load %{name}[%b, {row}, {{c}}] : {memref}, {vector}",
            f"vector.store {{v}}, %{name}[%b, {row}, {{c}}] : {memref}, {vector}")


def _scratch_access(scratch: str, vector: str) -> tuple[str, str]:
    """_row_access of the kernel's scratch row %w (of type `scratch`)."""
    return f"vector.load %w[{{c}}] : {scratch}, {vector}", f"vector.store {{v}}, %w[{{c}}] : {scratch}, {vector}"


# Independent sums a substitution kernel's row keeps, so that its multiply-adds do not wait on each other.
SOLVE_SUMS = 4


def triangular_solve_executable(symbol: str, batch: int, n: int, k: int, width: int, lower: bool,
                                unit: bool) -> str:
    """The substitution kernel for `batch` systems a X = B, a f32 [n, n] `lower` (else upper) triangular
    (its diagonal taken as ones where `unit`), B f32 [n, k] zero padded to whole vectors of `width`: the
    rows of X first to last (last to first for an upper a), each B's row less a's entries left (right) of
    the diagonal times the rows of X made, over vectors of the row in SOLVE_SUMS sums, then divided by the
    diagonal."""
    vector = f"vector<{width}xf32>"
    a, rows = f"memref<{batch}x{n}x{n}xf32>", f"memref<{batch}x{n}x{_padded(k, width)}xf32>"
    sums = range(SOLVE_SUMS)
    types = ", ".join([vector] * SOLVE_SUMS)

    # Lower: row %i after its %i rows before it. Upper: row %i = n - 1 - %s after its %s rows after it.
    first, count = ("%c0", "%i") if lower else ("%first", "%s")
    row = [] if lower else ["%i = arith.subi %last, %s : index", "%first = arith.addi %i, %c1 : index"]

    def term(t: str, acc: str, out: str) -> list[str]:
        """Lines adding -a[i, j] X[j] for the term t's row j to `acc`, as %{out}."""
        return [f"%{out}_j = arith.addi {first}, {t} : index",
                f"%{out}_e = memref.load %a[%b, %i, %{out}_j] : {a}",
                f"%{out}_n = arith.negf %{out}_e : f32",
                f"%{out}_v = vector.broadcast %{out}_n : f32 to {vector}",
                f"%{out}_y = vector.load %out[%b, %{out}_j, %c] : {rows}, {vector}",
                f"%{out} = vector.fma %{out}_v, %{out}_y, {acc} : {vector}"]

    return "\n".join([
        *executable_header(symbol, batch, [("a", a), ("in", rows), ("out", rows)]),
        f"%n = arith.constant {n} : index",
        f"%last = arith.constant {n - 1} : index",
        f"%width = arith.constant {_padded(k, width)} : index",
        f"%lanes = arith.constant {width} : index",
        f"%sums = arith.constant {SOLVE_SUMS} : index",
        *(f"%c{u} = arith.constant {u} : index" for u in range(2, SOLVE_SUMS)),
        f"%zeros = arith.constant dense<0.0> : {vector}",
        f"scf.for {'%i' if lower else '%s'} = %c0 to %n step %c1 {{",
        *row,
        f"%rest = arith.remui {count}, %sums : index",
        f"%whole = arith.subi {count}, %rest : index",
        *([] if unit else [f"%d = memref.load %a[%b, %i, %i] : {a}",
                           f"%dv = vector.broadcast %d : f32 to {vector}"]),
        "scf.for %c = %c0 to %width step %lanes {",
        f"%x0 = vector.load %in[%b, %i, %c] : {rows}, {vector}",
        f"%p:{SOLVE_SUMS} = scf.for %t = %c0 to %whole step %sums iter_args("
        + ", ".join(f"%a{u} = {'%x0' if u == 0 else '%zeros'}" for u in sums) + f") -> ({types}) {{",
        *(line for u in sums for line in [f"%t{u} = arith.addi %t, %c{u} : index", *term(f"%t{u}", f"%a{u}", f"s{u}")]),
        f"scf.yield {', '.join(f'%s{u}' for u in sums)} : {types}",
        "}",
        f"%q0 = scf.for %t = %whole to {count} step %c1 iter_args(%acc = %p#0) -> ({vector}) {{",
        *term("%t", "%acc", "r"),
        f"scf.yield %r : {vector}",
        "}",
        *(f"%q{u} = arith.addf %q{u - 1}, %p#{u} : {vector}" for u in range(1, SOLVE_SUMS)),
        *([] if unit else [f"%x = arith.divf %q{SOLVE_SUMS - 1}, %dv : {vector}"]),
        f"vector.store {f'%q{SOLVE_SUMS - 1}' if unit else '%x'}, %out[%b, %i, %c] : {rows}, {vector}",
        "}",
        "}",
        *FOOTER,
    ])


def complex_triangular_solve_executable(symbol: str, batch: int, n: int, k: int, width: int, lower: bool,
                                        unit: bool) -> str:
    """triangular_solve_executable for complex<f32> systems: a [n, n] as f32 rows of [re | im] halves, B and X
    [n, k] as such rows with each half zero padded to whole vectors of `width`; each row of X is B's less a's
    entries times the rows made, times the diagonal's reciprocal (formed in f64)."""
    vector, half = f"vector<{width}xf32>", _padded(k, width)
    a, rows = f"memref<{batch}x{n}x{2 * n}xf32>", f"memref<{batch}x{n}x{2 * half}xf32>"
    first, count = ("%c0", "%i") if lower else ("%first", "%s")
    row = [] if lower else ["%i = arith.subi %last, %s : index", "%first = arith.addi %i, %c1 : index"]
    reciprocal = [] if unit else [
        f"%dr = memref.load %a[%b, %i, %i] : {a}",
        "%iq = arith.addi %i, %n : index",
        f"%di = memref.load %a[%b, %i, %iq] : {a}",
        *_complex_reciprocal("rc", "%dr", "%di"),
        f"%rcrv = vector.broadcast %rcr : f32 to {vector}",
        f"%rciv = vector.broadcast %rci : f32 to {vector}"]
    divided = _complex_times("x", ("%acc#0", "%acc#1"), ("%rcrv", "%rciv"), vector)
    made = ("%acc#0", "%acc#1") if unit else ("%xr", "%xi")
    return "\n".join([
        *executable_header(symbol, batch, [("a", a), ("in", rows), ("out", rows)]),
        f"%n = arith.constant {n} : index",
        f"%last = arith.constant {n - 1} : index",
        f"%half = arith.constant {half} : index",
        f"%lanes = arith.constant {width} : index",
        f"scf.for {'%i' if lower else '%s'} = %c0 to %n step %c1 {{",
        *row,
        *reciprocal,
        "scf.for %c = %c0 to %half step %lanes {",
        "%cq = arith.addi %c, %half : index",
        f"%x0p = vector.load %in[%b, %i, %c] : {rows}, {vector}",
        f"%x0q = vector.load %in[%b, %i, %cq] : {rows}, {vector}",
        f"%acc:2 = scf.for %t = %c0 to {count} step %c1 iter_args(%ap = %x0p, %aq = %x0q) -> ({vector}, {vector}) {{",
        f"%j = arith.addi {first}, %t : index",
        f"%er = memref.load %a[%b, %i, %j] : {a}",
        "%jq = arith.addi %j, %n : index",
        f"%ei = memref.load %a[%b, %i, %jq] : {a}",
        "%ner = arith.negf %er : f32",
        "%nei = arith.negf %ei : f32",
        f"%nerv = vector.broadcast %ner : f32 to {vector}",
        f"%eiv = vector.broadcast %ei : f32 to {vector}",
        f"%neiv = vector.broadcast %nei : f32 to {vector}",
        f"%yp = vector.load %out[%b, %j, %c] : {rows}, {vector}",
        f"%yq = vector.load %out[%b, %j, %cq] : {rows}, {vector}",
        f"%ap1 = vector.fma %nerv, %yp, %ap : {vector}",
        f"%ap2 = vector.fma %eiv, %yq, %ap1 : {vector}",
        f"%aq1 = vector.fma %nerv, %yq, %aq : {vector}",
        f"%aq2 = vector.fma %neiv, %yp, %aq1 : {vector}",
        f"scf.yield %ap2, %aq2 : {vector}, {vector}",
        "}",
        *([] if unit else divided),
        f"vector.store {made[0]}, %out[%b, %i, %c] : {rows}, {vector}",
        f"vector.store {made[1]}, %out[%b, %i, %cq] : {rows}, {vector}",
        "}",
        "}",
        *FOOTER,
    ])


class _Kernels(KernelCalls):
    """The kernels one module's rewrites call (KernelCalls), and the StableHLO around each call."""

    def _padded_matrices(self, a, square: bool = False, lanes: int | None = None):
        """a [..., m, n] as [batch, m, w] (w: n in whole vectors of `lanes`, by default the f32 ones; [batch, w,
        w] if `square`), zero padded, and (batch, m, n)."""
        dims = build.shape(a)
        m, n = dims[-2:]
        batch = math.prod(dims[:-2])
        width = _padded(n, lanes or self.lanes)
        x = build.reshape(a, [batch, m, n])
        return build.pad(x, build.splat(0, build.tensor([], build.element(a))),
                         [(0, 0), (0, width - m if square else 0), (0, width - n)]), (batch, m, n)

    def _in_place(self, kind: str, a, executable, others: list[tuple[list[int], object]], square: bool = False):
        """Kernel `kind`'s results on the matrices a [..., m, n] padded to whole vectors (and rows, where
        `square`): the matrices it leaves, a's shape, then its results of `others` ([dims], element), each
        with a's batch dims in front."""
        dims = build.shape(a)
        x, (batch, m, n) = self._padded_matrices(a, square)
        symbol = f"oxla_f32_{kind}_{batch}x{m}x{n}"
        results = self.call(symbol, lambda: executable(symbol, batch, m, n, self.lanes), [x],
                             [x.type, *(build.tensor([batch, *d], e) for d, e in others)])
        matrices = build.reshape(build.slice_to(results[0], [batch, m, n]), dims)
        return [matrices, *(build.reshape(r, dims[:-2] + d) for r, (d, _) in zip(results[1:], others))]

    def cholesky(self, a, lower: bool):
        """lapack._cholesky's (factor, info) through the Cholesky kernel."""
        if isinstance(build.element(a), ir.ComplexType):
            return self._complex_cholesky(a, lower)
        dims = build.shape(a)
        factor, info = self._in_place(
            f"cholesky_{'lower' if lower else 'upper'}", a,
            lambda symbol, batch, m, n, lanes: cholesky_executable(symbol, batch, n, lanes, lower),
            [([], ir.IntegerType.get_signless(32))], square=True)
        zeros = build.splat(0, factor.type)
        return build.one("stablehlo.select", factor.type, lapack.triangle(dims, lower), factor, zeros), info

    def _complex_cholesky(self, a, lower: bool):
        """lapack._cholesky's (factor, info) of complex<f32> a through the complex Cholesky kernel, which makes
        U from the upper triangle (a lower one is that of a^H, and L = U^H)."""
        dims = build.shape(a)
        rank, n = len(dims), dims[-1]
        flip = list(range(rank - 2)) + [rank - 1, rank - 2]
        upper = build.conjugate(build.transpose(a, flip)) if lower else a
        batch, width = math.prod(dims[:-2]), _padded(n, self.lanes)
        real = build.concatenate(list(build.complex_parts(upper)), rank - 1)
        x = build.pad(self._halves_padded(real, [batch, n], width), build.splat(0, build.tensor([], ir.F32Type.get())),
                      [(0, 0), (0, width - n), (0, 0)])
        symbol = f"oxla_c64_cholesky_{batch}x{n}"
        made, info = self.call(symbol, lambda: complex_cholesky_executable(symbol, batch, n, self.lanes), [x],
                               [x.type, build.tensor([batch], ir.IntegerType.get_signless(32))])
        factor = _complex_from_halves(build.slice_to(made, [batch, n, 2 * width]), n, dims[:-2] + [n])
        if lower:
            factor = build.conjugate(build.transpose(factor, flip))
        factor = build.one("stablehlo.select", factor.type, lapack.triangle(dims, lower), factor,
                           build.splat(0, factor.type))
        return factor, build.reshape(info, dims[:-2])

    def getrf(self, op) -> list:
        """lapack.getrf's results through the LU kernel (of complex<f32> a, the complex one)."""
        if isinstance(build.element(op.operands[0]), ir.ComplexType):
            return self._complex_getrf(op.operands[0])
        a, i32 = op.operands[0], ir.IntegerType.get_signless(32)
        lu, pivots, info = self._in_place("lu", a, lu_executable, [([min(build.shape(a)[-2:])], i32), ([], i32)])
        return lapack.getrf_results(lu, pivots, info)

    def _complex_getrf(self, a) -> list:
        """lapack.getrf's results for complex<f32> a [..., m, n] through the complex LU kernel."""
        dims = build.shape(a)
        rank, (m, n) = len(dims), dims[-2:]
        batch, half, count = math.prod(dims[:-2]), _padded(n, self.lanes), min(m, n)
        real = build.concatenate(list(build.complex_parts(a)), rank - 1)
        x = self._halves_padded(real, [batch, m], half)
        i32 = ir.IntegerType.get_signless(32)
        symbol = f"oxla_c64_lu_{batch}x{m}x{n}"
        lu, pivots, info = self.call(symbol, lambda: complex_lu_executable(symbol, batch, m, n, self.lanes), [x],
                                     [x.type, build.tensor([batch, count], i32), build.tensor([batch], i32)])
        return lapack.getrf_results(_complex_from_halves(lu, n, dims[:-2] + [m]),
                                    build.reshape(pivots, dims[:-2] + [count]), build.reshape(info, dims[:-2]))

    def geqrf(self, op) -> list:
        """lapack.geqrf's results through the Householder QR kernel (of complex<f32> a, the complex one)."""
        if isinstance(build.element(op.operands[0]), ir.ComplexType):
            return self._complex_householder_qr(op.operands[0])
        return self.householder_qr(op.operands[0])

    def orgqr(self, op) -> list:
        """lapack.orgqr's (ungqr's) Q through the kernel forming it."""
        if isinstance(build.element(op.operands[0]), ir.ComplexType):
            return [self._complex_householder_q(*op.operands)]
        return [self.householder_q(*op.operands)]

    def _complex_householder_qr(self, a) -> list:
        """lapack's Householder QR (reflectors, taus) of complex<f32> a through the complex QR kernel."""
        dims = build.shape(a)
        rank, (m, n) = len(dims), dims[-2:]
        batch, half, count = math.prod(dims[:-2]), _padded(n, self.lanes), min(m, n)
        x = self._halves_padded(build.concatenate(list(build.complex_parts(a)), rank - 1), [batch, m], half)
        f32 = ir.F32Type.get()
        symbol = f"oxla_c64_qr_{batch}x{m}x{n}"
        made, taus = self.call(symbol, lambda: complex_qr_executable(symbol, batch, m, n, self.lanes), [x],
                               [x.type, build.tensor([batch, count, 2], f32)])
        parts = [build.reshape(build.strided_slice(taus, [0, 0, k], [batch, count, k + 1], [1, 1, 1]),
                               dims[:-2] + [count]) for k in (0, 1)]
        tau = build.one("stablehlo.complex", build.tensor(dims[:-2] + [count], build.element(a)), *parts)
        return [_complex_from_halves(made, n, dims[:-2] + [m]), tau]

    def _complex_householder_q(self, a, taus):
        """lapack's Q of complex<f32> reflectors in a and taus through the complex kernel forming it."""
        dims, k = build.shape(a), build.shape(taus)[-1]
        rank, (m, n) = len(dims), dims[-2:]
        batch, half = math.prod(dims[:-2]), _padded(n, self.lanes)
        x = self._halves_padded(build.concatenate(list(build.complex_parts(a)), rank - 1), [batch, m], half)
        tau = build.concatenate([build.reshape(part, [batch, k, 1]) for part in build.complex_parts(taus)], 2)
        symbol = f"oxla_c64_householder_q_{batch}x{m}x{n}x{k}"
        (q,) = self.call(symbol, lambda: complex_householder_q_executable(symbol, batch, m, n, k, self.lanes),
                          [x, tau], [x.type])
        return _complex_from_halves(q, n, dims[:-2] + [m])

    def householder_qr(self, a) -> list:
        """lapack's Householder QR (reflectors, taus) of a (as f32, or complex<f32>) through the QR kernel."""
        if isinstance(build.element(a), ir.ComplexType):
            return self._complex_householder_qr(build.convert(a, ir.ComplexType.get(ir.F32Type.get())))
        a = build.convert(a, ir.F32Type.get())
        return self._in_place("qr", a, qr_executable, [([min(build.shape(a)[-2:])], build.element(a))])

    def householder_q(self, a, taus):
        """lapack's Q of the reflectors in a and taus (as f32, or complex<f32>) through the kernel forming it."""
        if isinstance(build.element(a), ir.ComplexType):
            c64 = ir.ComplexType.get(ir.F32Type.get())
            return self._complex_householder_q(build.convert(a, c64), build.convert(taus, c64))
        a, taus = build.convert(a, ir.F32Type.get()), build.convert(taus, ir.F32Type.get())
        dims, k = build.shape(a), build.shape(taus)[-1]
        x, (batch, m, n) = self._padded_matrices(a)
        symbol = f"oxla_f32_householder_q_{batch}x{m}x{n}x{k}"
        (q,) = self.call(symbol, lambda: householder_q_executable(symbol, batch, m, n, k, self.lanes),
                          [x, build.reshape(taus, [batch, k])], [x.type])
        return build.reshape(build.slice_to(q, [batch, m, n]), dims)

    def eigen(self, a, vectors: bool):
        """lapack.syevd's eigen (values ascending, eigenvectors as rows or None, info) through the symmetric eigen
        kernel."""
        dims = build.shape(a)
        x, (batch, _, n) = self._padded_matrices(a)
        symbol = f"oxla_f32_symmetric_eigen{'_vectors' if vectors else ''}_{batch}x{n}"
        f64, i32 = ir.F64Type.get(), ir.IntegerType.get_signless(32)
        results = self.call(symbol, lambda: symmetric_eigen_executable(symbol, batch, n, self.lanes, vectors), [x],
                             [x.type, build.tensor([batch, n], f64), build.tensor([batch, n], f64),
                              build.tensor([batch], i32), *([x.type] if vectors else [])])
        rows = build.reshape(build.slice_to(results[4], [batch, n, n]), dims) if vectors else None
        return build.reshape(results[1], dims[:-1]), rows, build.reshape(results[3], dims[:-2])

    def hermitian_eigen(self, h, vectors: bool):
        """lapack.syevd's eigen for a complex<f32> Hermitian h [..., n, n] through the Hermitian eigen kernel:
        values ascending, the eigenvectors' conjugates as rows or None, info."""
        dims = build.shape(h)
        rank, n = len(dims), dims[-1]
        batch, half = math.prod(dims[:-2]), _padded(n, self.lanes)
        x = self._halves_padded(build.concatenate(list(build.complex_parts(h)), rank - 1), [batch, n], half)
        symbol = f"oxla_c64_hermitian_eigen{'_vectors' if vectors else ''}_{batch}x{n}"
        f64, i32 = ir.F64Type.get(), ir.IntegerType.get_signless(32)
        results = self.call(symbol, lambda: hermitian_eigen_executable(symbol, batch, n, self.lanes, vectors), [x],
                             [x.type, build.tensor([batch, n], f64), build.tensor([batch, n], f64),
                              build.tensor([batch], i32), *([x.type] if vectors else [])])
        rows = _complex_from_halves(results[4], n, dims[:-2] + [n]) if vectors else None
        return build.reshape(results[1], dims[:-1]), rows, build.reshape(results[3], dims[:-2])

    def singular_values(self, op) -> list:
        """lapack.gesdd's results in mode 'N' through the singular values kernel (of complex<f32> a, the complex
        one)."""
        values, info = self._singular_values(op.operands[0])
        return lapack.singular_values_only(op, values, info, descending=True)

    def _singular_values(self, a):
        """(singular values [..., min(m, n)] descending, info [...]) of f32 or complex<f32> a [..., m, n] by the
        kernel (on a^T where a is wide: the same values)."""
        dims = build.shape(a)
        rank = len(dims)
        tall = a if dims[-2] >= dims[-1] else build.transpose(a, list(range(rank - 2)) + [rank - 1, rank - 2])
        f64 = ir.F64Type.get()
        if isinstance(build.element(a), ir.ComplexType):
            (m, n), batch = build.shape(tall)[-2:], math.prod(dims[:-2])
            x = self._halves_padded(build.concatenate(list(build.complex_parts(tall)), rank - 1), [batch, m],
                                    _padded(n, self.lanes))
            symbol, executable = f"oxla_c64_singular_values_{batch}x{m}x{n}", complex_singular_values_executable
        else:
            x, (batch, m, n) = self._padded_matrices(tall)
            symbol, executable = f"oxla_f32_singular_values_{batch}x{m}x{n}", singular_values_executable
        results = self.call(symbol, lambda: executable(symbol, batch, m, n, self.lanes), [x],
                             [x.type, build.tensor([batch, n], f64), build.tensor([batch, n], f64),
                              build.tensor([batch], ir.IntegerType.get_signless(32))])
        return build.reshape(results[1], dims[:-2] + [n]), build.reshape(results[3], dims[:-2])

    def one_sided_sweeps(self, x, eps: float, vectors: bool):
        """lapack.gesdd's sweeps (x rotated, the rotations, converged) for x [..., k, M] f64: where its rows
        are at least twice as long as there are rows, the preconditioned sweeps of R^H from the QR kernels'
        x^H = Q R (the rotations W that make W R^H's rows orthogonal make W x = (W R^H) Q^H's so: k-long rows
        to rotate, not M-long), else of x itself. Complex<f64> rows are swept as they are (the QR cost more
        than the sweeps it saved, a sweep or two once preconditioned)."""
        assert vectors, "gesdd without vectors runs the singular values kernel"
        dims = build.shape(x)
        rank, k, long = len(dims), dims[-2], dims[-1]
        if long < 2 * k or isinstance(build.element(x), ir.ComplexType):
            return self._preconditioned_sweeps(x, eps)
        turn = list(range(rank - 2)) + [rank - 1, rank - 2]
        reflectors, taus = self.householder_qr(build.transpose(x, turn))
        square = build.slice_to(reflectors, dims[:-2] + [k, k])
        upper = build.one("stablehlo.select", square.type, lapack.triangle(dims[:-2] + [k, k], False), square,
                          build.splat(0, square.type))
        turned, rotations, converged = self._preconditioned_sweeps(
            build.convert(build.transpose(upper, turn), build.element(x)), eps)
        # (W R^H) Q^H in f32, as Q is: what gesdd makes of it are f32 vectors.
        rows = lapack.product(build.convert(turned, ir.F32Type.get()), self.householder_q(reflectors, taus),
                              rank - 1, rank - 1)
        return build.convert(rows, build.element(x)), rotations, converged

    def _preconditioned_sweeps(self, x, eps: float):
        """_sweeps' results for x [..., k, M] f64 (complex<f64>), the sweeps run on W0 x: W0 the eigenvectors'
        conjugates (as rows) of the f32 eigen kernel's x x^H (the Hermitian kernel's), made orthogonal in f64
        by a Newton-Schulz step, which turn x's rows nearly orthogonal (W0 x x^H W0^H is nearly diagonal), so
        that the sweeps, which still make them orthogonal to eps, have little left to rotate. The rotations
        returned are the sweeps' times W0."""
        rank, wide = len(build.shape(x)), build.element(x)
        gram = lapack.product(x, build.conjugate(x), rank - 1, rank - 1)
        if isinstance(wide, ir.ComplexType):
            _, rows, _ = self.hermitian_eigen(build.convert(gram, ir.ComplexType.get(ir.F32Type.get())), True)
        else:
            _, rows, _ = self.eigen(build.convert(gram, ir.F32Type.get()), vectors=True)
        w0 = lapack.newton_schulz_step(build.convert(rows, wide))
        turned, rotations, converged = self._sweeps(lapack.product(w0, x, rank - 1, rank - 2), eps)
        return turned, lapack.product(rotations, w0, rank - 1, rank - 2), converged

    def _sweeps(self, x, eps: float):
        """(x rotated, the rotations, converged) through the one-sided Jacobi kernel: x [..., k, M] f64 or
        complex<f64> (rows of [re | im] halves), its rows padded to whole vectors of f64 and the rotations'
        to k in them."""
        dims, lanes = build.shape(x), self.lanes // 2
        batch, k, long = math.prod(dims[:-2]), dims[-2], dims[-1]
        m = _padded(k, 2 * JACOBI_PAIRS)  # zero rows: a round's pairs are taken JACOBI_PAIRS at a time
        complex_rows = isinstance(build.element(x), ir.ComplexType)
        f64, i32 = ir.F64Type.get(), ir.IntegerType.get_signless(32)
        if complex_rows:
            real = build.concatenate(list(build.complex_parts(x)), len(dims) - 1)
            rows = self._halves_padded(real, [batch, k], _padded(long, lanes), f64)
            rot_width = 2 * _padded(k, lanes)
        else:
            rows = self._padded_matrices(x, lanes=lanes)[0]
            rot_width = _padded(k, lanes)
        rows = build.pad(rows, build.splat(0, build.tensor([], f64)), [(0, 0), (0, m - k), (0, 0)])
        width = build.shape(rows)[-1]
        symbol = f"oxla_{'c128' if complex_rows else 'f64'}_one_sided_jacobi_{batch}x{k}x{long}"
        turned, rotations, info = self.call(
            symbol, lambda: one_sided_jacobi_executable(symbol, batch, k, m, width, rot_width, lanes, eps,
                                                        complex_rows),
            [rows], [rows.type, build.tensor([batch, m, rot_width], f64), build.tensor([batch], i32)])
        converged = build.reshape(build.compare(info, build.splat(0, info.type), "EQ", "SIGNED"), dims[:-2])
        if complex_rows:
            turned, rotations = (build.slice_to(r, [batch, k, build.shape(r)[-1]]) for r in (turned, rotations))
            return (_complex_from_halves(turned, long, dims[:-1]), _complex_from_halves(rotations, k, dims[:-1]),
                    converged)
        return (build.reshape(build.slice_to(turned, [batch, k, long]), dims),
                build.reshape(build.slice_to(rotations, [batch, k, k]), dims[:-1] + [k]), converged)

    @staticmethod
    def _halves_padded(x, dims: list[int], half: int, element=None):
        """Real rows [..., k, 2n] ([p, q]) as f32 (or `element`) [*dims, 2 half], each half zero padded to `half`
        columns."""
        n = build.shape(x)[-1] // 2
        element = element or ir.F32Type.get()
        x = build.reshape(build.convert(x, element), dims + [2 * n])
        zero = build.splat(0, build.tensor([], element))
        halves = [build.pad(build.strided_slice(x, [0, 0, start], dims + [start + n], [1, 1, 1]), zero,
                            [(0, 0), (0, 0), (0, half - n)]) for start in (0, n)]
        return build.concatenate(halves, 2)

    def substitution(self, a, rhs, lower: bool, unit: bool):
        """triangular_solve.substitute's X through the substitution kernel, its rows in vectors of up to
        `lanes` elements (a power of two)."""
        dims, (n, k) = build.shape(rhs), build.shape(rhs)[-2:]
        width = min(self.lanes, 1 << (k - 1).bit_length())
        batch = math.prod(dims[:-2])
        if isinstance(build.element(rhs), ir.ComplexType):
            return self._complex_substitution(a, rhs, lower, unit, width)
        a = build.reshape(a, [batch, n, n])
        x = build.reshape(rhs, [batch, n, k])
        zero = build.splat(0, build.tensor([], build.element(x)))
        x = build.pad(x, zero, [(0, 0), (0, 0), (0, _padded(k, width) - k)])
        symbol = f"oxla_f32_{'lower' if lower else 'upper'}{'_unit' if unit else ''}_solve_{batch}x{n}x{k}"
        (solved,) = self.call(symbol, lambda: triangular_solve_executable(symbol, batch, n, k, width, lower, unit),
                               [a, x], [x.type])
        return build.reshape(build.slice_to(solved, [batch, n, k]), dims)


    def _complex_substitution(self, a, rhs, lower: bool, unit: bool, width: int):
        """substitution's X for complex<f32> a and rhs through the complex substitution kernel."""
        dims, (n, k) = build.shape(rhs), build.shape(rhs)[-2:]
        batch, last = math.prod(dims[:-2]), len(dims) - 1
        a_rows = build.reshape(build.concatenate(list(build.complex_parts(a)), last), [batch, n, 2 * n])
        x = self._halves_padded(build.concatenate(list(build.complex_parts(rhs)), last), [batch, n],
                                _padded(k, width))
        symbol = f"oxla_c64_{'lower' if lower else 'upper'}{'_unit' if unit else ''}_solve_{batch}x{n}x{k}"
        (solved,) = self.call(symbol, lambda: complex_triangular_solve_executable(symbol, batch, n, k, width,
                                                                                  lower, unit),
                               [a_rows, x], [x.type])
        return _complex_from_halves(solved, k, dims[:-1])


def _complex_from_halves(rows, n: int, dims: list[int]):
    """f32 (f64) rows [batch, k, 2 half] of [p, q] halves (each padded to half) as complex<f32> (complex<f64>)
    p + iq [*dims, n]."""
    batch, k, width = build.shape(rows)
    parts = [build.strided_slice(rows, [0, 0, start], [batch, k, start + n], [1, 1, 1]) for start in (0, width // 2)]
    made = build.one("stablehlo.complex", build.tensor([batch, k, n], ir.ComplexType.get(build.element(rows))),
                     *parts)
    return build.reshape(made, dims + [n])


def _kernel_matrix(value, element: str = "f32", most: int = MAX_ROWS) -> bool:
    """Whether `value` is a static tensor of `element` matrices of at most `most` rows and columns."""
    shaped = ir.RankedTensorType(value.type)
    return (shaped.has_static_shape and str(shaped.element_type) == element and shaped.rank >= 2
            and max(shaped.shape[-2:]) <= most)


_ROUTINES = ("potrf", "getrf", "trsm", "geqrf", "orgqr", "syevd", "gesdd")  # and heevd and gesdd of complex<f32>


def _kernel_root(op) -> bool:
    """Whether the kernels take `op`: stablehlo.cholesky or triangular_solve, or a potrf, getrf, geqrf, orgqr,
    trsm, syevd or gesdd call, of f32 matrices, or a potrf, getrf, geqrf, ungqr, trsm, heevd or gesdd call of
    complex<f32> ones."""
    if op.name == "stablehlo.cholesky":
        return _kernel_matrix(op.operands[0]) or _kernel_matrix(op.operands[0], "complex<f32>")
    if op.name == "stablehlo.triangular_solve":
        return any(all(_kernel_matrix(v, element) for v in op.operands) for element in ("f32", "complex<f32>"))
    if op.name != "stablehlo.custom_call":
        return False
    name = lapack.routine_of(ir.StringAttr(op.attributes["call_target_name"]).value)
    matrices = op.operands[:1] if name == "orgqr" else op.operands  # orgqr's tau is a vector
    if name in ("potrf", "getrf", "trsm", "geqrf", "ungqr") and _kernel_matrix(op.operands[0], "complex<f32>"):
        matrices = op.operands[:1] if name == "ungqr" else op.operands  # the complex kernels; ungqr's tau a vector
        return lapack.fits(op, lapack.ROUTINES[name]) and all(_kernel_matrix(v, "complex<f32>") for v in matrices)
    if name in ("heevd", "gesdd") and _kernel_matrix(op.operands[0], "complex<f32>"):
        return lapack.fits(op, lapack.ROUTINES[name])
    return (name in _ROUTINES and lapack.fits(op, lapack.ROUTINES[name])
            and all(_kernel_matrix(v) for v in matrices))


def _rewrite(op, kernels: _Kernels) -> None:
    """Replaces a _kernel_root op by the StableHLO around its kernel's call."""
    if op.name == "stablehlo.cholesky":
        build.replace(op, lambda call: lapack.cholesky(call, kernels.cholesky))
        return
    if op.name == "stablehlo.triangular_solve":
        build.replace(op, lambda call: triangular_solve.solve(call, kernels.substitution))
        return
    config = lapack.call_config(op)
    routine = lapack.routine_of(ir.StringAttr(op.attributes["call_target_name"]).value)
    if routine == "potrf":
        build.replace(op, lambda call: lapack.potrf(call, config, kernels.cholesky))
    elif routine == "syevd":
        build.replace(op, lambda call: lapack.syevd(call, config, kernels.eigen, ascending=True))
    elif routine == "heevd":
        build.replace(op, lambda call: lapack.syevd(call, config, kernels.hermitian_eigen, ascending=True))
    elif routine == "gesdd" and config.get("mode", ord("A")) == ord("N"):
        build.replace(op, kernels.singular_values)
    elif routine == "gesdd":
        build.replace(op, lambda call: lapack.gesdd(call, config, kernels.one_sided_sweeps,
                                                     (kernels.householder_qr, kernels.householder_q)))
    elif routine in ("getrf", "geqrf", "orgqr", "ungqr"):
        build.replace(op, getattr(kernels, "orgqr" if routine == "ungqr" else routine))
    else:
        (solve,) = build.replace(op, lambda call: lapack.trsm(call, config))
        _rewrite(solve.owner, kernels)


@register_pass
class LapackKernels(Pass):
    """Runs potrf, getrf, geqrf, orgqr, trsm, syevd, gesdd, stablehlo.cholesky and triangular_solve of f32 matrices, and potrf, getrf, geqrf, ungqr, trsm, heevd, gesdd, stablehlo.cholesky and triangular_solve of complex<f32> ones, as one CPU dispatch each (an SVD with vectors a few)."""

    name = "oxla-llvmcpu-lapack-kernels"
    anchor = "builtin.module"

    def run(self, module) -> None:
        lanes = cpu_lanes(module, "f32")
        if lanes is None:
            return
        kernels = _Kernels(lanes)
        for op in [o for o in ir.ops(module) if _kernel_root(o)]:
            _rewrite(op, kernels)
        kernels.define(module)
