"""The middle end in front of the ACT backend: block kernels and the loops around them.

ACT compiles statically shaped kernels and leaves tiling to the middle end (ACT §9.3: XLA
chooses tile sizes and loop structure; "Act focuses exclusively on the backend passes").
Legacy C kernels have run-time sizes, and the paper's large GEMMs would make e-graphs of tens
of thousands of tile products, so this module does what XLA does for ACT:

* a **block kernel** is a small static graph compiled by :func:`~tenspiler.act.compiler.
  compile_graph` — for a matrix product with blocks ``TM × TN × TK``: ``C = A·B`` (the first
  reduction block) and ``C = Cin + A·B`` (the later ones; the partial sums go through HBM as
  int32 rows);
* the compiled program is **relocated** (:func:`tenspiler.act.emit.relocate`): every HBM address is decoded into
  (region, row, column) of the block's dense layout and becomes ``pointer + (row0 + row) ·
  stride + (col0 + col)`` over the procedure's run-time pointers, block origins and strides;
  HBM stride attributes become the run-time strides. Nothing else changes: the on-chip
  addresses, α attributes and the order are the validated program's;
* a **loop procedure** (:class:`~tenspiler.act.schedule.Proc`) runs the relocated
  kernels over the blocks. It prints as C with ``gemmini.h`` macros and runs in Python to the
  instruction stream, like the procedures of :mod:`tenspiler.codegen.gemmini.procs`.

Operands are padded by the caller to whole blocks with zeros (zero rows/columns of A or B
add nothing to a product; padded output rows/columns are not copied back), so every block is
the compiled kernel exactly.

Aliasing argument for ``C = Cin + A·B`` run in place (``Cin`` and ``C`` the same DRAM): the
two regions overlap only element for element, and each output tile is written by a ``mvout``
that depends (through the accumulator) on the ``mvin`` of the same tile of ``Cin``, so every
element of ``Cin`` is read before its own position is written; distinct tiles are disjoint.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from tenspiler.act.compiler import compile_graph
from tenspiler.act.emit import RegionRef, lower, mul, relocate
from tenspiler.act.gemmini_tensor import gemmini_tensor_isa
from tenspiler.act.graph import Graph, GraphBuilder
from tenspiler.act.pii import Program
from tenspiler.act.schedule import E, For, Instr, Param, Proc, Stmt, const, var
from tenspiler.act.tensor_isa import TensorIsa, TInst

__all__ = ["Block", "act_affine_proc", "act_gemm_proc", "affine_block_graph", "affine_kernel", "gemm_block_graph",
           "gemm_kernels", "gemm_variants", "parse_proc_name", "proc_name"]


@dataclass(frozen=True)
class Block:
    """A GEMM block: ``tm × tn`` outputs, ``tk`` of the reduction (multiples of DIM)."""

    tm: int
    tn: int
    tk: int


def gemm_block_graph(block: Block, accumulate: bool, tile: int | None = None, config: str = "int8") -> Graph:
    """``C = A·B`` or ``C = Cin + A·B`` on one block: ``A`` ``[tm, tk]``, ``B`` ``[tk, tn]``,
    ``Cin`` and the result ``[tm, tn]``; int8 operands widened to an int32 product (``config``
    ``"int8"``) or all float32 (``"fp32"``).

    With ``tile``, the graph is already tiled the way XLA hands ACT its kernels: each output
    tile is ``Cin_ij + Σ_k dot(A_ik, B_kj)`` over ``tile``-sized slices, and the output is the
    concatenation of the tiles — the same value (the tiling rules of
    :mod:`tenspiler.act.select` would derive it, one tile per e-graph iteration)."""
    et, at = ("s8", "s32") if config == "int8" else ("f32", "f32")
    g = GraphBuilder()
    a = g.parameter("A", et, (block.tm, block.tk))
    b = g.parameter("B", et, (block.tk, block.tn))
    c = g.parameter("Cin", at, (block.tm, block.tn)) if accumulate else None

    def widen(x: int) -> int:
        return g.convert(x, at) if et != at else x

    if tile is None:
        y = g.dot(widen(a), widen(b))
        if c is not None:
            y = g.add(c, y)
        return g.build()
    t = tile
    rows = []
    for i in range(0, block.tm, t):
        cols = []
        for j in range(0, block.tn, t):
            acc = g.slice(c, (i, j), (i + t, j + t)) if c is not None else None
            for k in range(0, block.tk, t):
                p = g.dot(widen(g.slice(a, (i, k), (i + t, k + t))), widen(g.slice(b, (k, j), (k + t, j + t))))
                acc = p if acc is None else g.add(acc, p)
            assert acc is not None
            cols.append(acc)
        rows.append(cols[0] if len(cols) == 1 else g.concatenate(cols, 1))
    out = rows[0] if len(rows) == 1 else g.concatenate(rows, 0)
    return g.build(out)


@lru_cache(maxsize=32)
def gemm_kernels(dim: int, block: Block, config: str = "int8", spad_rows: int = 16384,
                 acc_rows: int = 1024) -> tuple[Program, Program]:
    """The two compiled block kernels (first reduction block, accumulating block) for Gemmini
    with a ``dim × dim`` array in ``config`` (cached per process).

    Raises:
        tenspiler.act.compiler.CompileError: FAIL (e.g. a block too large for the buffers)."""
    isa = gemmini_tensor_isa(dim, spad_rows, acc_rows, config=config)
    return (compile_graph(isa, gemm_block_graph(block, False, dim, config), output_name="C"),
            compile_graph(isa, gemm_block_graph(block, True, dim, config), output_name="C"))


def gemm_variants(dim: int) -> list[Block]:
    """The block shapes the middle end chooses from at run time (in DIM tiles): 1 or 4 rows
    and 1 or 4 columns of output tiles (1 when the product has at most DIM rows / columns: a
    dot product or matrix–vector product is not padded to 4 tiles), and a reduction block of
    4 tiles when K ≤ 4·DIM, of 8 when K ≤ 8·DIM, else 16 (fewer partial-sum round trips
    through HBM). :func:`choose` is the rule."""
    return [Block(tm * dim, tn * dim, tk * dim) for tm in (1, 4) for tn in (1, 4) for tk in (4, 8, 16)]


def choose(m: int, n: int, k: int, dim: int) -> Block:
    """The variant of :func:`gemm_variants` for an ``m × n`` product ``k`` deep (the
    generated C applies the same rule at run time)."""
    return Block(dim if m <= dim else 4 * dim, dim if n <= dim else 4 * dim,
                 4 * dim if k <= 4 * dim else 8 * dim if k <= 8 * dim else 16 * dim)


def proc_name(block: Block) -> str:
    """The device procedure name of a block variant (``act_gemm_64x16x64``)."""
    return f"act_gemm_{block.tm}x{block.tn}x{block.tk}"


def parse_proc_name(name: str) -> Block | None:
    """The block of an :func:`proc_name` name, or ``None``."""
    if not name.startswith("act_gemm_"):
        return None
    tm, tn, tk = (int(x) for x in name.removeprefix("act_gemm_").split("x"))
    return Block(tm, tn, tk)


def _body(isa: TensorIsa, insts: Sequence[TInst]) -> tuple[Stmt, ...]:
    return tuple(Instr(i.name, i.args) for i in lower(isa, insts, frame=False, regs={"hbm_base": 0}))


def act_gemm_proc(dim: int, block: Block, name: str | None = None, config: str = "int8") -> Proc:
    """``C[MB·tm × NB·tn] = A[MB·tm × KB·tk] · B[KB·tk × NB·tn]`` over whole blocks, with the
    ACT-compiled block kernels: for each output block, the first reduction block overwrites
    ``C``, the later ones accumulate into it through HBM. ``A``, ``B`` int8 and ``C`` int32
    row-major with row strides ``sa``, ``sb``, ``sc`` (elements); ``MB``, ``NB``, ``KB`` ≥ 1
    block counts. Ends with ``fence``.

    Raises:
        tenspiler.act.compiler.CompileError: the block kernels do not compile."""
    isa = gemmini_tensor_isa(dim, config=config)
    first, acc = gemm_kernels(dim, block, config)
    name = name or proc_name(block)
    bi, bj, bk = var("bi"), var("bj"), var("bk")
    sa, sb, sc = var("sa"), var("sb"), var("sc")

    def refs(k: E | int) -> dict[str, RegionRef]:
        c = RegionRef(var("C"), bi * block.tm, bj * block.tn, sc)
        return {"A": RegionRef(var("A"), bi * block.tm, mul(k, block.tk), sa),
                "B": RegionRef(var("B"), mul(k, block.tk), bj * block.tn, sb), "Cin": c, "C": c}

    body: tuple[Stmt, ...] = (
        For("bi", const(0), var("MB"), 1, (
            For("bj", const(0), var("NB"), 1, (
                *_body(isa, relocate(isa, first, refs(0))),
                For("bk", const(1), var("KB"), 1, _body(isa, relocate(isa, acc, refs(bk)))),
            )),
        )),
        Instr("fence", ()),
    )
    params = (Param("A", "ptr", "elem_t"), Param("B", "ptr", "elem_t"), Param("C", "ptr", "acc_t", written=True),
              Param("MB", "size"), Param("NB", "size"), Param("KB", "size"),
              Param("sa", "size"), Param("sb", "size"), Param("sc", "size"))
    doc = (f"C = A . B over {block.tm}x{block.tn}x{block.tk} blocks on a {dim}x{dim} Gemmini ({config}): block kernels "
           f"compiled by the ACT backend ({len(first.instructions)} + {len(acc.instructions)} tensor instructions, "
           f"e-graph selection + CP-SAT allocation, validated), relocated to the block's DRAM addresses")
    return Proc(name, params, body, doc)


# ---------------------------------------------------------------------- elementwise affine terms


def affine_block_graph(dim: int, tm: int, scaled: tuple[bool, ...], has_const: bool, config: str = "int8") -> Graph:
    """One block of ``y = Σ_t s_t·x_t (+ c)`` over ``tm × dim`` elements (an n-vector is rows
    of ``dim``): a scaled term is ``dot(x_t, S{t})`` with ``X{t}`` s8 ``[tm, dim]`` and
    ``S{t}`` s8 ``[dim, dim]`` = ``s_t·I`` built by the host (ACT Fig. 17's ``eye``
    constants); a unit term is ``X{t}`` s32 ``[tm, dim]`` itself; ``C`` s32 ``[dim, dim]``
    holds ``c`` in every element. Pre-tiled by rows of ``dim``; the result s32 ``[tm, dim]``.

    ``config="fp32"``: unit terms only, f32 throughout, added in the source's order with the
    constant last (float addition is not associative: the order is the summary's)."""
    g = GraphBuilder()
    if config == "fp32":
        if any(scaled):
            raise ValueError("fp32 affine block kernels take unit terms only")
        fx = [g.parameter(f"X{t}", "f32", (tm, dim)) for t in range(len(scaled))]
        fc = g.parameter("C", "f32", (dim, dim)) if has_const else None
        frows = []
        for i in range(0, tm, dim):
            parts = [g.slice(x, (i, 0), (i + dim, dim)) for x in fx] + ([fc] if fc is not None else [])
            total = parts[0]
            for p in parts[1:]:
                total = g.add(total, p)
            frows.append(total)
        return g.build(frows[0] if len(frows) == 1 else g.concatenate(frows, 0))
    xs = [g.parameter(f"X{t}", "s8" if s else "s32", (tm, dim)) for t, s in enumerate(scaled)]
    ss = {t: g.parameter(f"S{t}", "s8", (dim, dim)) for t, s in enumerate(scaled) if s}
    c = g.parameter("C", "s32", (dim, dim)) if has_const else None
    rows = []
    for i in range(0, tm, dim):
        acc = c
        for t, x in enumerate(xs):
            tile = g.slice(x, (i, 0), (i + dim, dim))
            term = g.dot(g.convert(tile, "s32"), g.convert(ss[t], "s32")) if t in ss else tile
            acc = term if acc is None else g.add(acc, term)
        assert acc is not None
        rows.append(acc)
    return g.build(rows[0] if len(rows) == 1 else g.concatenate(rows, 0))


@lru_cache(maxsize=32)
def affine_kernel(dim: int, tm: int, scaled: tuple[bool, ...], has_const: bool, config: str = "int8") -> Program:
    """The compiled affine block kernel (cached per process).

    Raises:
        tenspiler.act.compiler.CompileError: FAIL."""
    return compile_graph(gemmini_tensor_isa(dim, config=config), affine_block_graph(dim, tm, scaled, has_const, config),
                         output_name="Y")


def affine_proc_name(scaled: tuple[bool, ...], has_const: bool) -> str:
    """``act_affine_<s|u per term>[_c]`` (``act_affine_us_c``: a unit and a scaled term and a
    constant)."""
    return "act_affine_" + "".join("s" if s else "u" for s in scaled) + ("_c" if has_const else "")


def parse_affine_proc_name(name: str) -> tuple[tuple[bool, ...], bool] | None:
    if not name.startswith("act_affine_"):
        return None
    body = name.removeprefix("act_affine_")
    terms, _, c = body.partition("_")
    return tuple(ch == "s" for ch in terms), c == "c"


def act_affine_proc(dim: int, scaled: tuple[bool, ...], has_const: bool, name: str | None = None,
                    config: str = "int8") -> Proc:
    """``Y = Σ_t s_t·X{t} (+ c)`` over ``RB`` blocks of ``4·dim`` rows of ``dim`` elements
    (int8 ``X{t}`` of scaled terms with int8 ``S{t} = s_t·I``, int32 ``X{t}`` of unit terms,
    an int32 ``C`` tile, int32 ``Y``; dense rows), with the
    ACT-compiled block kernel relocated per block. Ends with ``fence``.

    Raises:
        tenspiler.act.compiler.CompileError: the block kernel does not compile."""
    isa = gemmini_tensor_isa(dim, config=config)
    tm = 4 * dim
    kernel = affine_kernel(dim, tm, scaled, has_const, config)
    bi = var("bi")
    refs = {f"X{t}": RegionRef(var(f"X{t}"), bi * tm, 0, dim) for t in range(len(scaled))}
    refs |= {f"S{t}": RegionRef(var(f"S{t}"), 0, 0, dim) for t, s in enumerate(scaled) if s}
    if has_const:
        refs["C"] = RegionRef(var("C"), 0, 0, dim)
    refs["Y"] = RegionRef(var("Y"), bi * tm, 0, dim)
    body: tuple[Stmt, ...] = (For("bi", const(0), var("RB"), 1, _body(isa, relocate(isa, kernel, refs))), Instr("fence", ()))
    params = (*(Param(f"X{t}", "ptr", "elem_t" if s else "acc_t") for t, s in enumerate(scaled)),
              *(Param(f"S{t}", "ptr", "elem_t") for t, s in enumerate(scaled) if s),
              *((Param("C", "ptr", "acc_t"),) if has_const else ()),
              Param("Y", "ptr", "acc_t", written=True), Param("RB", "size"))
    doc = (f"Y = sum of {len(scaled)} term(s){' + c' if has_const else ''} over blocks of {tm}x{dim} elements on a "
           f"{dim}x{dim} Gemmini: scaled terms multiply by s*I on the array, unit terms are widening loads; the block "
           f"kernel ({len(kernel.instructions)} tensor instructions) compiled by the ACT backend and relocated per block")
    return Proc(name or affine_proc_name(scaled, has_const), params, body, doc)
