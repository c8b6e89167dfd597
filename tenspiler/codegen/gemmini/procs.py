"""The hand-written Gemmini device procedure the code generator still instantiates (as
:class:`~tenspiler.act.schedule.Proc`); matrix products use the verified schedules of
:mod:`tenspiler.act.gemm_search`, elementwise terms the ACT backend where it can express them.

* :func:`affine_proc` — ``out[i] = s0·x0[i] + s1·x1[i] + … (+ c)`` over ``n`` elements, up to
  three terms: an ``n``-vector is ``⌈n/DIM⌉`` rows of DIM elements (the last row partial: no
  padding to squares); each term is an ``mvin``/``mvin2``/``mvin3`` into the accumulator with
  its ``config_ld`` scale, the first overwriting and the rest accumulating (bit 30); a
  constant is a row of DIM copies moved in with DRAM stride 0; the rows are moved out raw. The
  accumulator rows cycle through a ring so that loads of the next rows overlap the store of
  the previous ones.

It ends with ``gemmini_fence()`` so that host code may read the results.
"""

from __future__ import annotations

import numpy as np

from tenspiler.act.isa import IsaDescription
from tenspiler.act.isa.gemmini import (
    ACC_BIT,
    ACCUMULATE_BIT,
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
    var,
)

__all__ = ["affine_proc"]


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
