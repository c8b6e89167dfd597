"""The Gemmini device procedures the code generator instantiates (as :class:`~.schedule.Proc`).

* :func:`gemm_proc` — ``C[M×N] = A[M×K] · B[K×N]``: ``A``, ``B`` row-major ``inputType``
  matrices in DRAM with row strides ``sa``, ``sb`` (elements; ``sb = 0`` repeats one row, e.g.
  a column of ones), ``C`` row-major ``accType`` with row stride ``sc``. Weight-stationary,
  tiled for the scratchpad and accumulator: the output is computed in chunks of up to
  ``TI × TJ`` DIM×DIM tiles that fit the accumulator; for each chunk the reduction runs in
  chunks of ``TK`` tiles whose A and B tiles fit the scratchpad. Within a chunk each B tile
  is preloaded once and stays in the array while the ``TI`` A tiles stream through
  (``compute_preloaded`` then ``compute_accumulated``); the first reduction chunk overwrites
  the accumulator, later ones accumulate (bit 30). Edge tiles pass their true rows/cols
  (nothing is padded in DRAM). A B matrix that fits one chunk is moved in once. ``mvin`` moves
  up to ``MAX_BYTES`` per row (several DIM-column blocks, DIM rows apart in the scratchpad).
  Results are moved out raw (bit 29: full ``accType``). A vector is a 1-row or 1-column
  matrix: ``M @ v`` is ``M × K`` times ``K × 1`` (``sb = 1``), ``a · b`` is ``1 × K`` times
  ``K × 1``, a sum is a product with a ones column (``sb = 0``).
* :func:`affine_proc` — ``out[i] = s0·x0[i] + s1·x1[i] + … (+ c)`` over ``n`` elements, up to
  three terms: an ``n``-vector is ``⌈n/DIM⌉`` rows of DIM elements (the last row partial: no
  padding to squares); each term is an ``mvin``/``mvin2``/``mvin3`` into the accumulator with
  its ``config_ld`` scale, the first overwriting and the rest accumulating (bit 30); a
  constant is a row of DIM copies moved in with DRAM stride 0; the rows are moved out raw. The
  accumulator rows cycle through a ring so that loads of the next rows overlap the store of
  the previous ones.

Both end with ``gemmini_fence()`` so that host code may read the results.
"""

from __future__ import annotations

import numpy as np

from tenspiler.act.isa import IsaDescription
from tenspiler.act.isa.gemmini import (
    ACC_BIT,
    ACCUMULATE_BIT,
    GARBAGE,
    RAW_BIT,
    RELU,
    WEIGHT_STATIONARY,
)
from tenspiler.act.schedule import (
    E,
    For,
    If,
    Instr,
    Let,
    Param,
    Proc,
    Stmt,
    const,
    emin,
    select,
    var,
)

__all__ = ["affine_proc", "gemm_proc", "gemm_tiling"]


def gemm_tiling(isa: IsaDescription) -> dict[str, int]:
    """Static chunk bounds of :func:`gemm_proc` for ``isa``: ``TJ`` (≤ 4 column tiles),
    ``TI`` (row tiles: ``TI·TJ`` tiles fill the accumulator), ``TK`` (reduction tiles: the A
    and B tiles of a chunk fit the scratchpad, at most 16), ``maxb`` (DIM-column blocks per
    ``mvin`` of ``inputType``)."""
    d = isa.params["dim"]
    acc_tiles = isa.params["acc_rows"] // d
    spad_tiles = isa.params["spad_rows"] // d
    tj = max(1, min(4, acc_tiles))
    ti = max(1, acc_tiles // tj)
    tk = max(1, min(16, spad_tiles // (ti + tj)))
    return {"TJ": tj, "TI": ti, "TK": tk, "maxb": isa.params["spad_max_cols"] // d}


def _ceil(x: E, d: int) -> E:
    return (x + (d - 1)) // d


def gemm_proc(isa: IsaDescription, name: str = "gemmini_gemm") -> Proc:
    """The tiled matrix product procedure (see the module docstring). Parameters: ``A``, ``B``
    (``elem_t`` pointers), ``C`` (``acc_t`` pointer), ``M``, ``N``, ``K``, ``sa``, ``sb``,
    ``sc`` (row strides in elements)."""
    d = isa.params["dim"]
    t = gemm_tiling(isa)
    tj, ti, tk, maxb = t["TJ"], t["TI"], t["TK"], t["maxb"]
    es = np.dtype(isa.types["input"]).itemsize
    acs = np.dtype(isa.types["acc"]).itemsize
    A, B, C, M, N, K = (var(x) for x in ("A", "B", "C", "M", "N", "K"))
    sa, sb, sc = var("sa"), var("sb"), var("sc")
    i0, j0, k0, il, jl, kl = (var(x) for x in ("i0", "j0", "k0", "il", "jl", "kl"))
    b_base = ti * tk * d

    def a_tile(il_: E, kl_: E) -> E:
        return (il_ * tk + kl_) * d

    def b_tile(kl_: E, jl_: E) -> E:
        return b_base + (kl_ * tj + jl_) * d

    def c_tile(il_: E, jl_: E) -> E:
        return ACC_BIT + (il_ * tj + jl_) * d

    # moving in one chunk of A (rows i0.., reduction tiles k0..kend) and of B
    load_a = For("il", const(0), var("ti_n"), 1, (
        Let("ar", emin(d, M - (i0 + il) * d)),
        For("kl", const(0), var("tk_n"), maxb, (
            Let("k", k0 + kl),
            Instr("mvin", (A + ((i0 + il) * d * sa + var("k") * d) * es, a_tile(il, kl),
                           emin(emin(maxb, var("tk_n") - kl) * d, K - var("k") * d), var("ar"))),
        )),
    ))
    load_b = For("kl", const(0), var("tk_n"), 1, (
        Let("k", k0 + kl),
        Let("br", emin(d, K - var("k") * d)),
        For("jl", const(0), var("tj_n"), maxb, (
            Let("j", j0 + jl),
            Instr("mvin2", (B + (var("k") * d * sb + var("j") * d) * es, b_tile(kl, jl),
                            emin(emin(maxb, var("tj_n") - jl) * d, N - var("j") * d), var("br"))),
        )),
    ))
    compute = For("jl", const(0), var("tj_n"), 1, (
        Let("cc", emin(d, N - (j0 + jl) * d)),
        For("kl", const(0), var("tk_n"), 1, (
            Let("k", k0 + kl),
            Let("kk", emin(d, K - var("k") * d)),
            Let("flag", select(var("k").eq(0), 0, ACCUMULATE_BIT)),
            For("il", const(0), var("ti_n"), 1, (
                Let("cr", emin(d, M - (i0 + il) * d)),
                If(il.eq(0), (
                    Instr("preload", (b_tile(kl, jl), c_tile(il, jl) + var("flag"), var("cc"), var("kk"), var("cc"), var("cr"))),
                    Instr("compute_preloaded", (a_tile(il, kl), GARBAGE, var("kk"), var("cr"), d, d)),
                ), (
                    Instr("preload", (GARBAGE, c_tile(il, jl) + var("flag"), d, d, var("cc"), var("cr"))),
                    Instr("compute_accumulated", (a_tile(il, kl), GARBAGE, var("kk"), var("cr"), d, d)),
                )),
            )),
        )),
    ))
    store = For("il", const(0), var("ti_n"), 1, (
        For("jl", const(0), var("tj_n"), 1, (
            Instr("mvout", (C + ((i0 + il) * d * sc + (j0 + jl) * d) * acs, c_tile(il, jl) + RAW_BIT,
                            emin(d, N - (j0 + jl) * d), emin(d, M - (i0 + il) * d))),
        )),
    ))
    body: tuple[Stmt, ...] = (
        Let("IB", _ceil(M, d)), Let("JB", _ceil(N, d)), Let("KB", _ceil(K, d)),
        Instr("config_ex", (WEIGHT_STATIONARY, 0, 0, 1.0, 0, 1, 0, 0)),
        Instr("config_st", (sc * acs,)),
        Instr("config_ld", (sa * es, 1.0, 0, 0)),
        Instr("config_ld", (sb * es, 1.0, 0, 1)),
        Let("b_resident", var("JB").le(tj) * var("KB").le(tk)),
        If(var("b_resident"), (
            Let("k0", const(0)), Let("j0", const(0)), Let("tk_n", var("KB")), Let("tj_n", var("JB")), load_b,
        )),
        For("i0", const(0), var("IB"), ti, (
            Let("ti_n", emin(ti, var("IB") - i0)),
            For("j0", const(0), var("JB"), tj, (
                Let("tj_n", emin(tj, var("JB") - j0)),
                For("k0", const(0), var("KB"), tk, (
                    Let("tk_n", emin(tk, var("KB") - k0)),
                    load_a,
                    If(var("b_resident"), (), (load_b,)),
                    compute,
                )),
                store,
            )),
        )),
        Instr("fence", ()),
    )
    params = (Param("A", "ptr", "elem_t"), Param("B", "ptr", "elem_t"), Param("C", "ptr", "acc_t", written=True),
              Param("M", "size"), Param("N", "size"), Param("K", "size"),
              Param("sa", "size"), Param("sb", "size"), Param("sc", "size"))
    doc = (f"C[M x N] = A[M x K] . B[K x N] on a {d}x{d} Gemmini (weight-stationary; chunks of "
           f"{ti}x{tj} output tiles, {tk} reduction tiles; C raw accType)")
    return Proc(name, params, body, doc)


def affine_proc(isa: IsaDescription, nterms: int, constant: bool, name: str, relu: bool = False) -> Proc:
    """``out = s0·x0 + … + s{nterms-1}·x{nterms-1} (+ c)`` over ``n`` elements (see the module
    docstring). Parameters: ``x0``…, ``s0``… (float scale factors), ``cst`` (DIM copies of the
    constant, when ``constant``), ``out``, ``n``. ``relu``: ``out = max(…, 0)`` by moving the
    rows out through the activation (``config_ex`` act = ReLU, ``acc_scale`` 1.0: a scaled
    read, ``inputType`` out — exact for the fp32 configuration only).

    Raises:
        ValueError: more than three loads per row (``nterms + constant > 3``) or none.
    """
    loads = nterms + int(constant)
    if not 1 <= loads <= 3 or nterms < 1:
        raise ValueError(f"an affine procedure moves in 1 to 3 operands per row, got {loads}")
    d = isa.params["dim"]
    acs = np.dtype(isa.types["acc"]).itemsize
    ring = max(1, min(8, isa.params["acc_rows"] // d))
    n, out, r = var("n"), var("out"), var("r")
    movers = ("mvin", "mvin2", "mvin3")

    def row_block(start: E, cols: E, rows: E, slot: E) -> tuple[Stmt, ...]:
        acc = ACC_BIT + slot * d
        stmts: list[Stmt] = []
        for t in range(nterms):
            flag = 0 if t == 0 else ACCUMULATE_BIT
            stmts.append(Instr(movers[t], (var(f"x{t}") + start * acs, acc + flag, cols, rows)))
        if constant:
            stmts.append(Instr(movers[nterms], (var("cst"), acc + ACCUMULATE_BIT, cols, rows)))
        stmts.append(Instr("mvout", (out + start * acs, acc + (0 if relu else RAW_BIT), cols, rows)))
        return tuple(stmts)

    if relu and isa.types["input"] != isa.types["acc"]:
        raise ValueError("a ReLU affine procedure needs inputType == accType (the fp32 configuration)")
    configs: list[Stmt] = [Instr("config_ex", (WEIGHT_STATIONARY, RELU, 0, 1.0, 0, 1, 0, 0))] if relu else []
    configs.append(Instr("config_st", (d * acs,)))
    configs += [Instr("config_ld", (d * acs, var(f"s{t}"), 0, t)) for t in range(nterms)]
    if constant:
        configs.append(Instr("config_ld", (0, 1.0, 0, nterms)))
    body: tuple[Stmt, ...] = (
        *configs,
        Let("R", n // d),
        For("r", const(0), var("R"), d, row_block(r * d, const(d), emin(d, var("R") - r), (r // d) % ring)),
        If(const(0).lt(n % d), row_block(var("R") * d, n % d, const(1), (var("R") // d + 1) % ring)),
        Instr("fence", ()),
    )
    params = tuple(Param(f"x{t}", "ptr", "acc_t") for t in range(nterms))
    params += tuple(Param(f"s{t}", "float") for t in range(nterms))
    params += (Param("cst", "ptr", "acc_t"),) if constant else ()
    params += (Param("out", "ptr", "acc_t", written=True), Param("n", "size"))
    terms = " + ".join(f"s{t}*x{t}" for t in range(nterms)) + (" + c" if constant else "")
    terms = f"max({terms}, 0)" if relu else terms
    return Proc(name, params, body, f"out[0:n] = {terms} on a {d}x{d} Gemmini (rows of {d} in the accumulator; raw accType out)")
