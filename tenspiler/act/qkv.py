"""The hypothetical QKV accelerator H_QKV of ACT's running example, in ACT's format (ACT §3.1–§3.3,
Fig. 3, Fig. 7), and the QKV graph G_QKV it is built for (ACT §2, Fig. 2).

H_QKV (ACT Fig. 3(a)) has a byte-addressed HBM ``d0``, a scratchpad ``d1`` of ``rows`` rows of
``width`` elements (128 × 64 in the paper), an intermediate buffer ``d2`` of ``width`` rows of
``width`` elements (64 × 64) written by the gemm and softmax units, a DMA engine, a gemm unit
and a softmax unit. Its instruction set (ACT Fig. 3(b): five data movement and two compute
instructions; W = ``width``, R = ``rows``):

* ``load_rm``  — α ``n ∈ [1, R]``; β ``addr_in, addr_out``; writes ``d1[addr_out : addr_out + n, :W]``;
  reads the HBM window of ``n × W`` f32 at byte ``addr_in``; g_θ = ``x1``.
* ``load_cm``  — α ``n ∈ [1, R]``; β ``addr_in, addr_out``; writes ``d1[addr_out : addr_out + n, :W]``;
  reads the HBM window of ``W × n`` f32 at byte ``addr_in``; g_θ = ``transpose(x1)``.
* ``store_rm`` — α ``n ∈ [1, R]``; β ``addr_in, addr_out``; writes the HBM window of ``n × W``
  f32 at byte ``addr_out``; reads ``d1[addr_in : addr_in + n, :W]``; g_θ = ``x1``.
* ``store_cm`` — α ``n ∈ [1, R]``; β ``addr_in, addr_out``; writes the HBM window of ``W × n``
  f32 at byte ``addr_out``; reads ``d1[addr_in : addr_in + n, :W]``; g_θ = ``transpose(x1)``.
* ``copy``     — α ``n ∈ [1, W]``; β ``addr_in, addr_out``; writes ``d1[addr_out : addr_out + n, :W]``;
  reads ``d2[addr_in : addr_in + n, :W]``; g_θ = ``x1``.
* ``gemm``     — no α; β ``addr1, addr2, addr_out``; writes ``d2[addr_out : addr_out + W, :W]``;
  reads ``d1[addr1 : addr1 + W, :W]`` and ``d1[addr2 : addr2 + W, :W]``; g_θ = ``dot(x1, x2)``.
* ``softmax``  — α ``n ∈ [1, W]``; β ``addr``; writes and reads ``d2[addr : addr + n, :W]`` (in
  place); g_θ = ``divide(exponential(x1), broadcast(reduce_add(exponential(x1))))``.

(HBM windows are contiguous: ``n × W`` f32 at byte ``addr`` is ``n · W · 4`` bytes, rows
``W · 4`` bytes apart; ``W × n`` is ``W`` rows ``n · 4`` bytes apart. softmax's
``reduce_add`` sums over the columns, attrs ``((1,),)``, and the ``broadcast`` maps the row
sums back over the columns, attrs ``((0,),)``.) Every instruction is described only by this
data; its functional oracle is the generic :class:`~tenspiler.act.tensor_isa.TermOracle`, and
there is no ``expand`` (the instructions are the machine's own).

**Deviations from the paper**, forced by our operator set and slice format:

1. **f32, not bf16.** Our graph dtypes are s8/s32/f32, so every on-chip element and every
   HBM window is f32: ``d1`` holds 128 × 64 f32 (32 KB instead of the paper's 16 KB of
   bf16), ``d2`` 64 × 64 f32 (16 KB instead of 8 KB); a 64 × 64 tensor takes 16384 HBM bytes
   (8192 in the paper), so the HBM addresses of Fig. 10(b) double (:func:`fig10_program`).
   The HBM is byte-addressed, 1 MB (``u8[2^20]`` in Fig. 7; ``s8`` here, only the bytes
   matter).
2. **No bitcvt/reshape in g_θ.** Fig. 3(b)/Fig. 7 read the HBM as ``u8[n·128]`` and convert
   with ``bitcvt(reshape(x1))``; our HBM slices are windows of typed elements (the slice's
   ``dtype``), so that conversion is the slice itself: load_rm/store_rm are ``x1`` and
   load_cm/store_cm are ``transpose(x1)`` of the window.
3. **Column-major windows.** ``load_cm`` writes ``n`` rows of ``d1`` (as ``load_rm``) from
   the column-major image of an ``n × W`` tile: ``n · W`` contiguous elements read as a
   ``W × n`` row-major window, then transposed (the paper's ``transpose(bitcvt(reshape(x1)))``
   with ``reshape`` to ``[W, n]``). ``store_cm`` is its inverse. For ``n = W`` (Fig. 10) the
   window is the row-major tensor itself and the load yields its transpose.
4. **mov is called copy**, as in Fig. 10(b) (Fig. 3(b) lists it as ``mov``); its g_θ is the
   identity ``x1`` (our operators have no ``copy``; Def. 6 already copies the output slice).
5. **α ranges.** The paper states ``n ∈ [1, 128]`` for load_rm (§3.3); the other ranges follow
   from the buffers: transfers between ``d0`` and ``d1`` move ``n ∈ [1, rows]`` rows, copy and
   softmax work on ``n ∈ [1, width]`` rows of ``d2``. gemm has no α (Fig. 10(b)): it always
   multiplies a ``W × W`` tile by a ``W × W`` tile into the ``W × W`` buffer ``d2``
   (accumulating in f32). Slices always cover whole rows (§3.2: "Instructions read and/or
   modify the scratchpad at a row granularity"), and the HBM windows have no stride β (the
   paper's β are only the start addresses). The β ranges of the paper (``addr_in ∈
   [0, 2^20)``, ``addr_out ∈ [0, 128)``) are implied by the slices lying inside their buffers.
6. **softmax** is the paper's g_θ: no max subtraction, so inputs whose exponential overflows
   f32 give ``inf``/``nan`` (as the term says).

**Costs** (``TensorInstruction.cost``, a constant per instruction): the work of one W-row
instance in units of W² element operations: a transfer between HBM and ``d1`` moves W²
elements (1.0; 1.25 for the transposing ones), copy moves W² elements on chip (0.5: no HBM
traffic), gemm does W³ multiply-adds (W), softmax ~3 operations per element (3.0).
"""

from __future__ import annotations

from tenspiler.act.graph import Graph, GraphBuilder
from tenspiler.act.tensor_isa import (
    Slice,
    TensorBuffer,
    TensorInstruction,
    TensorIsa,
    Term,
    TInst,
    x,
)

__all__ = ["HBM_BYTES", "fig10_program", "qkv_graph", "qkv_isa", "softmax_term"]

HBM_BYTES = 1 << 20
"""Size of the HBM ``d0`` in bytes (ACT §3.3: ``addr_in ∈ [0, 2^20)``; Fig. 7: 1 MB)."""

F32_BYTES = 4


def softmax_term(arg: Term) -> Term:
    """Row-wise softmax of a 2-D f32 term ``arg`` (``[n, W] → [n, W]``), the g_θ of ACT
    Fig. 3(b): ``divide(exponential(arg), broadcast(reduce_add(exponential(arg))))``, summing
    over the columns (``reduce_add`` attrs ``((1,),)``) and broadcasting the ``[n]`` row sums
    back along the columns (``broadcast`` attrs ``((0,),)``)."""
    e = Term("exponential", (arg,))
    sums = Term("reduce_add", (e,), ((1,),))
    return Term("divide", (e, Term("broadcast", (sums,), ((0,),))))


def qkv_isa(rows: int = 128, width: int = 64) -> TensorIsa:
    """H_QKV (ACT Fig. 3, Fig. 7) as a :class:`~tenspiler.act.tensor_isa.TensorIsa`: HBM ``d0``
    (1 MB), scratchpad ``d1`` (``rows`` × ``width`` f32), intermediate buffer ``d2``
    (``width`` × ``width`` f32) and the seven instructions of the module docstring's table.

    Args:
        rows: rows of the scratchpad ``d1`` (128 in the paper).
        width: elements per row of ``d1`` and ``d2``, rows of ``d2``, and the gemm tile edge
            (64 in the paper).

    Raises:
        ValueError: ``rows`` or ``width`` below 1.
    """
    if rows < 1 or width < 1:
        raise ValueError(f"qkv_isa: rows = {rows} and width = {width} must be at least 1")
    w = width
    d0 = TensorBuffer("d0", HBM_BYTES, 1, "s8", hbm=True,
                      doc="HBM: 1 MB, byte-addressed (ACT Fig. 7 line 3: u8[2^20])")
    d1 = TensorBuffer("d1", rows, w, "f32",
                      doc="scratchpad: rows of f32 vectors (ACT Fig. 7 line 4: bf16[128, 64])")
    d2 = TensorBuffer("d2", w, w, "f32",
                      doc="intermediate buffer of the gemm and softmax units (ACT Fig. 7 line 5: bf16[64, 64])")
    n_d1 = (("n", (1, rows)),)  # rows moved between d0 and d1 (ACT §3.3: n ∈ [1, 128])
    n_d2 = (("n", (1, w)),)  # rows of d2
    transpose = Term("transpose", (x(1),), ((1, 0),))
    instructions = (
        TensorInstruction(
            "load_rm", n_d1, ("addr_in", "addr_out"),
            Slice("d1", "addr_out", "n", w), (Slice("d0", "addr_in", "n", w, dtype="f32"),),
            x(1), cost=1.0,
            doc="ACT Fig. 3(b), Fig. 7 lines 7-17: load n rows (row-major, n·W contiguous f32 at HBM "
                "byte addr_in) into d1 rows [addr_out, addr_out + n); g = bitcvt(reshape(x1)), here x1"),
        TensorInstruction(
            "load_cm", n_d1, ("addr_in", "addr_out"),
            Slice("d1", "addr_out", "n", w), (Slice("d0", "addr_in", w, "n", dtype="f32"),),
            transpose, cost=1.25,
            doc="ACT Fig. 3(b), Fig. 10(b): load an n × W tile stored column-major (n·W contiguous f32 at "
                "HBM byte addr_in, read as a W × n window) into d1 rows [addr_out, addr_out + n); "
                "g = transpose(bitcvt(reshape(x1))), here transpose(x1)"),
        TensorInstruction(
            "store_rm", n_d1, ("addr_in", "addr_out"),
            Slice("d0", "addr_out", "n", w, dtype="f32"), (Slice("d1", "addr_in", "n", w),),
            x(1), cost=1.0,
            doc="ACT Fig. 3(b), Fig. 10(b): store d1 rows [addr_in, addr_in + n) row-major to n·W "
                "contiguous f32 at HBM byte addr_out; g = reshape(bitcvt(x1)), here x1"),
        TensorInstruction(
            "store_cm", n_d1, ("addr_in", "addr_out"),
            Slice("d0", "addr_out", w, "n", dtype="f32"), (Slice("d1", "addr_in", "n", w),),
            transpose, cost=1.25,
            doc="ACT Fig. 3(b): store d1 rows [addr_in, addr_in + n) column-major (a W × n window of "
                "contiguous f32 at HBM byte addr_out); g = transpose(reshape(bitcvt(x1))), here "
                "transpose(x1)"),
        TensorInstruction(
            "copy", n_d2, ("addr_in", "addr_out"),
            Slice("d1", "addr_out", "n", w), (Slice("d2", "addr_in", "n", w),),
            x(1), cost=0.5,
            doc="ACT Fig. 3(b) (mov), Fig. 10(b) (copy): copy d2 rows [addr_in, addr_in + n) to d1 rows "
                "[addr_out, addr_out + n); g = copy(x1), here x1"),
        TensorInstruction(
            "gemm", (), ("addr1", "addr2", "addr_out"),
            Slice("d2", "addr_out", w, w), (Slice("d1", "addr1", w, w), Slice("d1", "addr2", w, w)),
            Term("dot", (x(1), x(2))), cost=float(w),
            doc="ACT Fig. 3(b), Fig. 10(b): d2 rows [addr_out, addr_out + W) = d1 rows [addr1, addr1 + W) "
                "· d1 rows [addr2, addr2 + W) (W × W · W × W, f32); g = dot(x1, x2)"),
        TensorInstruction(
            "softmax", n_d2, ("addr",),
            Slice("d2", "addr", "n", w), (Slice("d2", "addr", "n", w),),
            softmax_term(x(1)), cost=3.0,
            doc="ACT Fig. 3(b), Fig. 10(b): row-wise softmax of d2 rows [addr, addr + n), in place; "
                "g = div(exp(x1), broadcast(reduce(exp(x1))))"),
    )
    return TensorIsa("qkv", (d0, d1, d2), instructions, doc=__doc__ or "")


def fig10_program(width: int = 64) -> tuple[TInst, ...]:
    """The hand-compiled program of ACT Fig. 10(b) for G_QKV over ``width × width`` f32
    tensors, with the paper's HBM layout scaled to f32 (T = ``width² · 4`` bytes): Q at byte 0,
    K at T, V at 2T (row-major, contiguous), the output softmax(Q·Kᵀ)·V at 3T. It runs on
    ``qkv_isa(rows, width)`` for any ``rows ≥ 2 · width`` (it uses d1 rows ``[0, 2·width)``
    and all of d2).

    Raises:
        ValueError: ``width`` below 1, or the four tensors larger than the HBM.
    """
    if width < 1 or 4 * width * width * F32_BYTES > HBM_BYTES:
        raise ValueError(f"fig10_program: width {width} outside [1, 256] (four width² f32 tensors in 1 MB)")
    w, t = width, width * width * F32_BYTES
    return (
        TInst("load_rm", (w,), (0, 0)),  # d1[0:W] = Q
        TInst("load_cm", (w,), (t, w)),  # d1[W:2W] = Kᵀ
        TInst("gemm", (), (0, w, 0)),  # d2 = Q · Kᵀ
        TInst("softmax", (w,), (0,)),  # d2 = softmax(d2)
        TInst("copy", (w,), (0, 0)),  # d1[0:W] = d2
        TInst("load_rm", (w,), (2 * t, w)),  # d1[W:2W] = V
        TInst("gemm", (), (0, w, 0)),  # d2 = softmax(Q · Kᵀ) · V
        TInst("copy", (w,), (0, 0)),  # d1[0:W] = d2
        TInst("store_rm", (w,), (0, 3 * t)),  # HBM[3T:4T] = d1[0:W]
    )


def qkv_graph(n: int, d: int) -> Graph:
    """G_QKV of ACT Fig. 2 (single batch, single head): ``softmax(Q · Kᵀ) · V`` with parameters
    ``Q``, ``K``, ``V`` (in that order), each f32 ``[n, d]``; the root is f32 ``[n, d]``. Only
    ``parameter``, ``transpose``, ``dot``, ``exponential``, ``reduce_add``, ``broadcast`` and
    ``divide`` nodes; the softmax is row-wise and has no max subtraction (as Fig. 3(b)).

    Raises:
        tenspiler.act.graph.GraphError: ``n`` or ``d`` below 1.
    """
    b = GraphBuilder()
    q = b.parameter("Q", "f32", (n, d))
    k = b.parameter("K", "f32", (n, d))
    v = b.parameter("V", "f32", (n, d))
    kt = b.transpose(k, (1, 0))  # f32[d, n]
    s = b.dot(q, kt)  # f32[n, n]
    e = b.exponential(s)  # f32[n, n]
    sums = b.reduce_add(e, (1,))  # f32[n]: row sums
    p = b.divide(e, b.broadcast(sums, (n, n), (0,)))  # f32[n, n]: softmax over each row
    b.dot(p, v)  # f32[n, d]
    return b.build()
