"""The ``<fn>.gemmini.c`` file: device procedures with ``gemmini.h`` macros plus host C code.

Layout of the generated file:

1. a header comment (summary, configuration, per-output placement, how to build and check);
2. ``#include "include/gemmini.h"`` — or, with ``-DTENSPILER_RECORD``, the recording header
   (:func:`tenspiler.act.record.recording_header`) that ``--check`` compiles against;
3. the device procedures (:mod:`.procs`, rendered by :func:`.schedule.render_c`);
4. the entry function, with the kernel's (flat) C parameters: for each device call in order —
   set up its operands (the host packs operands that are not plain views: int ``int`` data to
   int8, computed subterms, ``unsigned char`` data to ``int32``), check the call's run-time
   contract (:mod:`.lower`), run the procedure or, when the contract fails, the host fallback
   (``tenspiler_gemmini_fallbacks`` counts those); then compute every output into a buffer
   with host C (:mod:`tenspiler.codegen.c_host` with ``c_types``: each operation in its C
   type, ``float`` in ``float``, comparisons in C's common type), copy the buffers into the output arrays
   (outputs are functions of the entry state, so nothing is overwritten early) and return.

Integer device results are widened to ``int64_t`` for the host (the proof's integers are
unbounded; the contract keeps the device's int32 values exact).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tenspiler.act.isa import IsaDescription
from tenspiler.act.schedule import Proc, render_c
from tenspiler.codegen.c_host import CArray, CHostEmitter, prelude
from tenspiler.codegen.gemmini.lower import MAX_INT8_K, AffineCall, GemmCall, Operand, Plan
from tenspiler.codegen.gemmini.procs import affine_proc
from tenspiler.codegen.loop_c import function_body_c
from tenspiler.codegen.preconditions import Precondition
from tenspiler.errors import CodegenError
from tenspiler.ir.printer import show, show_output
from tenspiler.ir.terms import ArrayOutput, Flatten, Term, is_tensor, rank
from tenspiler.loops.ir import DType, Function, PointerType

__all__ = ["CFile", "c_file", "param_c_type"]

#: exactness bound of a float32 scale factor applied to an integer
EXACT_F32 = 2**24


def _c_type(fn: Function, d: DType, c_type: str) -> str:
    """The C spelling of a value of dtype ``d`` whose source spelling is ``c_type`` (a Python
    kernel's integers: ``long long``; the int8 contract still decides what reaches Gemmini)."""
    if c_type and d == DType.INT:
        return c_type
    if fn.python is not None and d == DType.INT:
        return "long long"
    return d.c_name


def param_c_type(fn: Function, name: str) -> str:
    """The C element / scalar type of parameter ``name`` (:func:`_c_type`)."""
    p = fn.param(name)
    return _c_type(fn, p.type.elem if isinstance(p.type, PointerType) else p.type.dtype, p.c_type)


def return_c_type(fn: Function) -> str | None:
    """The C return type of the entry (``None``: void; :func:`_c_type`)."""
    return None if fn.return_dtype is None else _c_type(fn, fn.return_dtype, fn.return_c_type)


@dataclass
class CFile:
    """The generated C text and what the harness needs to call it."""

    text: str
    entry: str
    procs: dict[str, Proc]
    scalar_calls: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


#: The names the generated C declares in the entry's scope (``fresh``, the call names of
#: :mod:`.lower` and their suffixes, the loop variables ``tenspiler_i`` …, c_host's ``tsp_``):
#: a parameter spelled so would be shadowed or redeclared.
_GENERATED = re.compile(r"tenspiler_|tsp_|g[0-9]+(?:_|$)")


class _Emitter:
    def __init__(self, fn: Function, plan: Plan, isa: IsaDescription, preconditions: Sequence[Precondition] = (),
                 search_s: float = 0.0, sizes: Mapping[str, int] | None = None,
                 search_candidates: int | None = None) -> None:
        self.fn, self.plan, self.isa, self.search_s = fn, plan, isa, search_s
        self.search_candidates = search_candidates
        self.sizes = dict(sizes or {})
        self.notes: list[str] = []
        self.preconditions = tuple(preconditions)
        self.config = isa.params["config"]
        self.int_config = self.config == "int8"
        self.lines: list[str] = []
        self.decls: list[str] = []
        self.frees: list[str] = []
        self.procs: dict[str, Proc] = {}
        self.tmp = 0
        arrays: dict[str, CArray] = {}
        scalars: dict[str, str] = {}
        lengths = self._lengths()
        for name in [p.name for p in fn.params] + [v if isinstance(v, str) else v.name for v in (fn.cxx.signature if fn.cxx else ())]:
            if _GENERATED.match(name):
                raise CodegenError(f"parameter {name!r}: the Gemmini C file names its own variables tenspiler_*, tsp_* "
                                   "and g<number>* (the device calls); rename the parameter")
        for p in fn.params:
            if isinstance(p.type, PointerType):
                # a C pointer has no length: a term needing it fails to compile, naming it
                arrays[p.name] = CArray(p.name, param_c_type(fn, p.name), lengths.get(p.name, f"tenspiler_length_of_{p.name}_is_unknown"))
            else:
                scalars[p.name] = p.name
        self.arrays, self.scalars = arrays, scalars
        self.host = CHostEmitter(arrays, scalars, c_types=True)

    def _lengths(self) -> dict[str, str]:
        out: dict[str, str] = {}
        if self.fn.cxx is not None:
            for v in self.fn.cxx.signature:
                if not isinstance(v, str):
                    out[v.name] = " * ".join(f"(int64_t)({s})" for s in v.sizes)
        return out

    def _refresh(self) -> None:
        self.host = CHostEmitter(self.arrays, self.scalars, c_types=True)

    def fresh(self, base: str) -> str:
        self.tmp += 1
        return f"tenspiler_{base}{self.tmp}"

    def emit(self, line: str, depth: int = 1) -> None:
        self.lines.append("    " * depth + line if line else "")

    def alloc(self, name: str, ctype: str, count: str, depth: int = 1) -> None:
        """``name = TENSPILER_ALLOC(...)``; the pointer is declared at function scope and freed
        before the function returns."""
        self.decls.append(f"{ctype} *{name} = NULL;")
        self.frees.append(name)
        self.emit(f"{name} = ({ctype} *)TENSPILER_ALLOC(sizeof({ctype}) * (size_t)TENSPILER_MAX((int64_t)({count}), (int64_t)1));", depth)

    # ------------------------------------------------------------ operands

    def operand(self, op: Operand, elem: str, depth: int, checks: list[str], bound_var: str | None = None,
                lo: int | None = None, hi: int | None = None, offset: int = 0) -> tuple[str, str]:
        """``(pointer expression, element count)`` of an operand in DRAM as ``elem``; for
        ``host`` operands the host fills a buffer. ``lo``/``hi``: the int range each element
        must lie in (appends the check's flag to ``checks``); ``bound_var``: receives the
        largest magnitude."""
        if op.kind == "ones":  # device-readable memory: a row of DIM ones (a column read with stride 0), or of K ones
            ones = self.fresh("ones")
            count = "DIM" if op.offset is None else f"TENSPILER_MAX((int64_t)({self.host.scalar(op.offset)}), (int64_t)DIM)"
            self.alloc(ones, "elem_t", count, depth)
            self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < (int64_t)({count}); tenspiler_i++) {ones}[tenspiler_i] = (elem_t)1;", depth)
            return ones, count
        if op.kind == "view":
            assert op.offset is not None and op.term is not None
            ptr = f"({op.base} + {self.host.scalar(op.offset)})"
            n = self.host.length(op.term)
            if bound_var is not None:
                self._scan(ptr, n, depth, checks, bound_var, lo, hi)
            return ptr, n
        assert op.term is not None
        term = op.term
        if op.shape is not None:  # a 2-D host term, stored row-major
            rows, cols = (self.host.scalar(x) for x in op.shape)
            n = f"(({rows}) * ({cols}))"
            wide = self.fresh("wide")
            ctype = "int64_t" if lo is not None or bound_var is not None else elem
            self.alloc(wide, ctype, n, depth)
            self.emit(f"for (int64_t tenspiler_r = 0; tenspiler_r < (int64_t)({rows}); tenspiler_r++) for (int64_t tenspiler_c = 0; tenspiler_c < (int64_t)({cols}); tenspiler_c++)", depth)
            self.emit(f"    {wide}[tenspiler_r * ({cols}) + tenspiler_c] = ({ctype})({self.host.elem2(term, 'tenspiler_r', 'tenspiler_c')});", depth)
            if ctype == elem:
                return wide, n
            buf = self.fresh("buf")
            self.alloc(buf, elem, n, depth)
            self._scan(wide, n, depth, checks, bound_var, lo, hi, narrow_into=(buf, elem), offset=offset)
            return buf, n
        n = self.host.length(term)
        if lo is None and bound_var is None:
            buf = self.fresh("buf")
            self.alloc(buf, elem, n, depth)
            self.lines.extend("    " * depth + s for s in self.host.fill(buf, term, elem))
            return buf, n
        wide = self.fresh("wide")
        self.alloc(wide, "int64_t", n, depth)
        self.lines.extend("    " * depth + s for s in self.host.fill(wide, term, "int64_t"))
        buf = self.fresh("buf")
        self.alloc(buf, elem, n, depth)
        self._scan(wide, n, depth, checks, bound_var, lo, hi, narrow_into=(buf, elem), offset=offset)
        return buf, n

    def _scan(self, ptr: str, n: str, depth: int, checks: list[str], bound_var: str | None, lo: int | None, hi: int | None,
              narrow_into: tuple[str, str] | None = None, offset: int = 0) -> None:
        ok = self.fresh("ok")
        checks.append(ok)
        self.emit(f"int {ok} = 1;", depth)
        if bound_var is not None:
            self.emit(f"int64_t {bound_var} = 0;", depth)
        self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < (int64_t)({n}); tenspiler_i++) {{", depth)
        shift = f" - INT64_C({offset})" if offset else ""
        self.emit(f"const int64_t tenspiler_v = (int64_t){ptr}[tenspiler_i]{shift};", depth + 1)
        if lo is not None:
            self.emit(f"if (tenspiler_v < {lo} || tenspiler_v > {hi}) {ok} = 0;", depth + 1)
        if bound_var is not None:
            self.emit(f"if (tenspiler_v > {bound_var}) {bound_var} = tenspiler_v; if (-tenspiler_v > {bound_var}) {bound_var} = -tenspiler_v;", depth + 1)
        if narrow_into is not None:
            self.emit(f"{narrow_into[0]}[tenspiler_i] = ({narrow_into[1]})tenspiler_v;", depth + 1)
        self.emit("}", depth)

    # ------------------------------------------------------------ calls

    def result_buffer(self, name: str, count: str, dtype: DType) -> str:
        """The host-visible buffer of a device result (int64_t for integers)."""
        ctype = "int64_t" if not dtype.is_float else "float"
        self.alloc(name, ctype, count)
        self.arrays[name] = CArray(name, ctype, f"(int64_t)({count})")
        return ctype

    def device_gemm(self, c: GemmCall, a_ptr: str, b_ptr: str, raw: str, sa: str, sb: str, bias: str | None = None) -> None:
        """The product with a schedule of :mod:`tenspiler.act.gemm_search`. A product whose
        sizes are all known — literals, or values of the size parameters given by the user
        (``sizes``, CLI ``--gemmini-sizes``) — gets the winner of the verified schedule search
        (int8); with literals it is the only schedule, with user-given sizes the C file uses
        it when the run-time sizes are those and the run-time variants
        (:func:`~tenspiler.act.gemm_search.choose_variant`) otherwise. The host pads A and B
        with zeros to whole blocks, the procedure computes the padded product, and the host
        copies the ``m × n`` corner into ``raw``. ``bias``: the host buffer of ``c.bias`` (int64
        or float values): the host writes the accumulator-type ``D`` of the fused bias (one row
        repeated, ``sd = 0``, for a scalar or a bias per column; a whole matrix for a bias per
        row)."""
        from tenspiler.act.gemm_search import (
            MAX_CANDIDATES,
            GemmSchedule,
            choose_variant_c,
            gemm_schedule_proc,
            runtime_variants,
            schedule_name,
            search,
        )
        from tenspiler.ir.interp import evaluate
        from tenspiler.ir.terms import Lit, free_vars

        dim = int(self.isa.params["dim"])
        spad = int(self.isa.params["spad_rows"])

        def literal(t: object) -> int | None:
            return int(t.value) if isinstance(t, Lit) else None

        def hinted(t: Term) -> int | None:
            if literal(t) is not None:
                return literal(t)
            if not self.sizes or not set(free_vars(t)) <= set(self.sizes):
                return None
            try:
                return int(evaluate(t, dict(self.sizes)))
            except Exception:
                return None

        lits = (literal(c.m), literal(c.n), literal(c.k))
        hints = (hinted(c.m), hinted(c.n), hinted(c.k))
        all_literal = all(v is not None for v in lits)
        x = c.name
        d = 4
        special: GemmSchedule | None = None
        if self.int_config and self.search_s > 0 and all(v is not None and v > 0 for v in hints):
            hm, hn, hk = (int(v) for v in hints)  # type: ignore[arg-type]
            mt, nt, kt = (-(-v // dim) * dim for v in (hm, hn, hk))
            r = search(mt, nt, kt, dim, max_candidates=self.search_candidates or MAX_CANDIDATES, time_limit=self.search_s,
                       bias=None if c.bias is None else "full" if c.bias.along == "rows" else "row")
            if r.timed_out:  # the one outcome that depends on the machine: as if there were no search
                self.notes.append(f"{x} ({hm}x{hn}x{hk}): the schedule search stopped at its wall-clock safety net "
                                  f"({self.search_s:g} s, --gemmini-search-s) and is not used")
            else:
                special = r.schedule
                self.notes.append(f"{x} ({hm}x{hn}x{hk}{'' if all_literal else ', from the given sizes'}): schedule search "
                                  f"winner {schedule_name(special)}: {special.describe()}; modelled "
                                  f"{r.report.utilization:.1%} of the array ({r.report.cycles} cycles, tenspiler.act.cost), "
                                  f"best of {r.candidates} candidates, bit-exact on the oracle")
        variants = [] if special is not None and all_literal else runtime_variants(dim, *lits)
        fused = c.bias is not None
        if variants:
            self.notes.append(f"{x}: run-time schedule choice among {', '.join(schedule_name(v, fused) for v in variants)} "
                              f"(tenspiler.act.gemm_search.choose_variant)")
        for v in ([special] if special is not None else []) + variants:
            self.procs.setdefault(schedule_name(v, fused), gemm_schedule_proc(v, dim, config=self.config, bias=fused))
        if special is not None:
            cond = "1" if all_literal else f"{x}_m == {hints[0]} && {x}_n == {hints[1]} && {x}_k == {hints[2]}"
            self.emit(f"/* the schedule: the search's winner {schedule_name(special, fused)}"
                      f"{'' if all_literal else ' for the given sizes'} */", d - 1)
            self.emit(f"const int {x}_special = {cond};", d - 1)
        if variants:
            self.emit("/* the run-time schedule: tenspiler.act.gemm_search.choose_variant */", d - 1)
            for line in choose_variant_c(x, dim, spad):
                self.emit(line, d - 1)
        if special is not None and variants:
            self.emit(f"const int64_t {x}_TM = {x}_special ? {special.tm} : 1, {x}_TN = {x}_special ? {special.tn} : {x}_tn, "
                      f"{x}_TK = {x}_special ? {special.tk} : {x}_tk;", d - 1)
        elif special is not None:
            self.emit(f"const int64_t {x}_TM = {special.tm}, {x}_TN = {special.tn}, {x}_TK = {special.tk};", d - 1)
        else:
            self.emit(f"const int64_t {x}_TM = 1, {x}_TN = {x}_tn, {x}_TK = {x}_tk;", d - 1)
        self.emit(f"const int64_t {x}_mb = ({x}_m + {x}_TM * {dim} - 1) / ({x}_TM * {dim}), "
                  f"{x}_nb = ({x}_n + {x}_TN * {dim} - 1) / ({x}_TN * {dim}), "
                  f"{x}_kc = ({x}_k + {x}_TK * {dim} - 1) / ({x}_TK * {dim});", d - 1)
        self.emit(f"const int64_t {x}_mp = {x}_mb * {x}_TM * {dim}, {x}_np = {x}_nb * {x}_TN * {dim}, "
                  f"{x}_kp = {x}_kc * {x}_TK * {dim};", d - 1)
        ap, bp, cp = f"{x}_ap", f"{x}_bp", f"{x}_cp"
        self.alloc(ap, "elem_t", f"{x}_mp * {x}_kp", d - 1)
        self.alloc(bp, "elem_t", f"{x}_kp * {x}_np", d - 1)
        self.alloc(cp, "acc_t", f"{x}_mp * {x}_np", d - 1)
        self.emit("/* zero padding to whole blocks (zero rows/columns add nothing to the product) */", d - 1)
        self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {x}_mp; tenspiler_i++) for (int64_t tenspiler_j = 0; tenspiler_j < {x}_kp; tenspiler_j++)", d - 1)
        self.emit(f"    {ap}[tenspiler_i * {x}_kp + tenspiler_j] = (tenspiler_i < {x}_m && tenspiler_j < {x}_k) ? {a_ptr}[tenspiler_i * (int64_t)({sa}) + tenspiler_j] : (elem_t)0;", d - 1)
        self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {x}_kp; tenspiler_i++) for (int64_t tenspiler_j = 0; tenspiler_j < {x}_np; tenspiler_j++)", d - 1)
        self.emit(f"    {bp}[tenspiler_i * {x}_np + tenspiler_j] = (tenspiler_i < {x}_k && tenspiler_j < {x}_n) ? {b_ptr}[tenspiler_i * (int64_t)({sb}) + tenspiler_j] : (elem_t)0;", d - 1)
        args = f"{ap}, {bp}, {cp}, (uint64_t){x}_mb, (uint64_t){x}_nb, (uint64_t){x}_kc, (uint64_t){x}_kp, (uint64_t){x}_np, (uint64_t){x}_np"
        if c.bias is not None and bias is not None:
            dp = f"{x}_dp"
            per_row = c.bias.along == "rows"
            self.alloc(dp, "acc_t", f"{x}_mp * {x}_np" if per_row else f"{x}_np", d - 1)
            value = {"all": f"{bias}[0]", "columns": f"{bias}[tenspiler_j]", "rows": f"{bias}[tenspiler_i]"}[c.bias.along]
            if per_row:
                self.emit("/* the bias D: one value per row, a whole matrix (zero padding) */", d - 1)
                self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {x}_mp; tenspiler_i++) for (int64_t tenspiler_j = 0; tenspiler_j < {x}_np; tenspiler_j++)", d - 1)
                self.emit(f"    {dp}[tenspiler_i * {x}_np + tenspiler_j] = (tenspiler_i < {x}_m && tenspiler_j < {x}_n) ? (acc_t){value} : (acc_t)0;", d - 1)
            else:
                self.emit("/* the bias D: one row, repeated for every output row (stride 0) */", d - 1)
                self.emit(f"for (int64_t tenspiler_j = 0; tenspiler_j < {x}_np; tenspiler_j++) {dp}[tenspiler_j] = tenspiler_j < {x}_n ? (acc_t){value} : (acc_t)0;", d - 1)
            args += f", {dp}, (uint64_t){x + '_np' if per_row else '0'}"
        branches = ([(f"{x}_special", special)] if special is not None else []) + [
            (f"{x}_tn == {v.tn} && {x}_tk == {v.tk} && {x}_bres == {int(v.b_resident)}", v) for v in variants]
        if len(branches) == 1 and special is not None and not variants:
            self.emit(f"{schedule_name(special, fused)}({args});", d - 1)
        else:
            for i, (cond, v) in enumerate(branches):
                self.emit(f"{'if' if i == 0 else '} else if'} ({cond}) {{", d - 1)
                self.emit(f"{schedule_name(v, fused)}({args});", d)
            self.emit("}", d - 1)
        self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {x}_m; tenspiler_i++) for (int64_t tenspiler_j = 0; tenspiler_j < {x}_n; tenspiler_j++) {raw}[tenspiler_i * {x}_n + tenspiler_j] = {cp}[tenspiler_i * {x}_np + tenspiler_j];", d - 1)

    def gemm(self, c: GemmCall) -> None:
        m, n, k = (self.host.scalar(x) for x in (c.m, c.n, c.k))
        self.emit(f"/* {c.name}: {c.what} on Gemmini (a verified schedule, tenspiler.act.gemm_search): {show(c.source)} */")
        self.emit(f"const int64_t {c.name}_m = {m}, {c.name}_n = {n}, {c.name}_k = {k};")
        count = f"{c.name}_m * {c.name}_n"
        self.result_buffer(c.name, count, c.dtype)
        if c.scalar:
            self.scalars[c.name] = f"{c.name}[0]"
        self.emit("{")
        raw = f"{c.name}_raw"
        self.alloc(raw, "acc_t", count, 2)
        checks: list[str] = []
        lo, hi = (-128, 127) if self.int_config else (None, None)
        a_ptr, _ = self.operand(c.a, "elem_t", 2, checks, None, lo, hi, offset=c.a_offset)
        b_ptr, _ = self.operand(c.b, "elem_t", 2, checks, None, lo, hi)
        sa = self.host.scalar(c.a.stride) if c.a.stride is not None else "0"
        sb = self.host.scalar(c.b.stride) if c.b.stride is not None else "0"
        # negative sizes: a view only a discarded select branch would read (the host's loops
        # then do nothing); int8: the reduction must not wrap the int32 accumulator
        sizes = f"{c.name}_m >= 0 && {c.name}_n >= 0 && {c.name}_k >= 0"
        bias = self.bias_values(c, checks) if c.bias is not None else None
        ok = " && ".join([sizes, *checks, f"{c.name}_k <= {MAX_INT8_K}"] if self.int_config else [sizes, *checks])
        # a matrix product's m x n result is stored row-major: its flattening
        source = Flatten(c.source) if is_tensor(c.source) and rank(c.source) == 2 else c.source
        self.emit(f"if ({c.name}_k == 0 && {c.name}_m >= 0 && {c.name}_n >= 0) {{", 2)
        if c.bias is None:
            self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {count}; tenspiler_i++) {c.name}[tenspiler_i] = 0;", 3)
        else:  # an empty reduction: the bias alone
            self.fallback(c.name, source, c.scalar, 3)
        self.emit(f"}} else if ({ok}) {{", 2)
        self.device_gemm(c, a_ptr, b_ptr, raw, sa, sb, bias)
        back = f" + INT64_C({c.a_offset}) * {c.name}_k" if c.a_offset else ""  # the shift of a uint8 sum
        self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {count}; tenspiler_i++) {c.name}[tenspiler_i] = {raw}[tenspiler_i]{back};", 3)
        self.emit("} else {", 2)
        self.emit("tenspiler_gemmini_fallbacks++;  /* run-time contract failed: the host computes it */", 3)
        self.fallback(c.name, source, c.scalar, 3)
        self.emit("}", 2)
        self.emit("}")

    def bias_values(self, c: GemmCall, checks: list[str]) -> str:
        """The host buffer of the fused bias's values (int64 / float; one element for a
        scalar). int8: a check that no value can make the int32 accumulator wrap — a sum of
        ``K`` int8 products lies in ``[-16256·K, 16384·K]``, so ``|bias| ≤ 2³¹ - 1 - 16384·K``
        keeps every partial sum inside int32 (appended to ``checks``)."""
        assert c.bias is not None
        ctype = "float" if not self.int_config else "int64_t"
        buf = self.fresh("bias")
        term = c.bias.term
        if c.bias.along == "all":
            n = "1"
            self.alloc(buf, ctype, n, 2)
            self.emit(f"{buf}[0] = ({ctype})({self.host.scalar(term)});", 2)
        else:
            n = self.host.length(term)
            self.alloc(buf, ctype, n, 2)
            self.lines.extend("    " * 2 + line for line in self.host.fill(buf, term, ctype))
        if self.int_config:
            ok = self.fresh("ok")
            checks.append(ok)
            self.emit(f"int {ok} = 1;", 2)
            self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < (int64_t)({n}); tenspiler_i++)", 2)
            self.emit(f"    if ({buf}[tenspiler_i] > INT64_C(2147483647) - INT64_C(16384) * {c.name}_k || "
                      f"{buf}[tenspiler_i] < -INT64_C(2147483647) + INT64_C(16384) * {c.name}_k) {ok} = 0;", 2)
        return buf

    def fallback(self, dst: str, source: Term, scalar: bool, depth: int, dst_ctype: str | None = None) -> None:
        ctype = dst_ctype or self.arrays[dst].ctype
        if scalar:
            self.emit(f"{dst}[0] = ({ctype})({self.host.scalar(source)});", depth)
        else:
            self.lines.extend("    " * depth + s for s in self.host.fill(dst, source, ctype))

    def _affine_target(self, c: AffineCall, comment: str, header: bool = True) -> tuple[str | None, str | None]:
        """Declare an affine call's length (and, unless it writes an output array directly,
        its result buffer); return ``(output pointer, output C type)`` of a direct call, else
        ``(None, None)``. ``header=False``: already declared (only the direct target)."""
        if header:
            self.emit(f"/* {c.name}: {comment}: {show(c.source)} */")
            self.emit(f"const int64_t {c.name}_n = {self.host.scalar(c.length)};")
        if c.output is not None:
            return f"({c.output.array} + {self.host.scalar(c.output.lo)})", param_c_type(self.fn, c.output.array)
        if header:
            self.result_buffer(c.name, f"{c.name}_n", c.dtype)
        return None, None

    def _affine_fallback(self, c: AffineCall, out: str | None, out_ctype: str | None) -> None:
        """The host computes an affine call whose run-time contract failed (depth 3)."""
        self.emit("tenspiler_gemmini_fallbacks++;  /* run-time contract failed: the host computes it */", 3)
        if out is not None and out_ctype is not None:
            tmp = self.fresh("fb")
            self.alloc(tmp, out_ctype, f"{c.name}_n", 3)
            self.lines.extend("    " * 3 + s for s in self.host.fill(tmp, c.source, out_ctype))
            self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {c.name}_n; tenspiler_i++) {out}[tenspiler_i] = {tmp}[tenspiler_i];", 3)
        else:
            self.fallback(c.name, c.source, False, 3)

    def act_affine(self, c: AffineCall) -> None:
        """An int8-configuration affine term through the ACT backend
        (:func:`tenspiler.act.tiling.act_affine_proc`), padded with zeros to whole blocks of
        ``4·DIM × DIM`` elements. Unit terms are int32 operands moved into the accumulator;
        a scaled term ``s·x`` is a product with the int8 matrix ``s·I``, so ``x`` is packed
        to int8 — shifted by 128 when it holds values in [0, 255] that int8 cannot (the
        constant tile gets ``128·s`` back), decided per call from the data. Contract: packed
        operands and scales in [-128, 127], ``Σ|terms| + |c| < 2³¹`` (no int32 wrap). When it
        fails, a call with scaled terms tries the hand-written procedure (int32 operands,
        float32 scale factors, its own contract), then the host."""
        from tenspiler.act.tiling import act_affine_proc, affine_proc_name

        dim = int(self.isa.params["dim"])
        scaled = tuple(s is not None for s, _ in c.terms)
        has_const = c.constant is not None or any(scaled)
        proc = self.procs.setdefault(affine_proc_name(scaled, has_const), act_affine_proc(dim, scaled, has_const))
        x = c.name
        out, out_ctype = self._affine_target(c, "elementwise add/sub/scale on Gemmini (block kernel compiled by the ACT backend)")
        self.emit("{")
        checks: list[str] = []
        conds = [f"{x}_n >= 0"]
        bound = []
        ptrs = []
        cst = [f"{x}_c0"]
        self.emit(f"const int64_t {x}_c0 = {self.host.scalar(c.constant) if c.constant is not None else '0'};", 2)
        for i, (s, op) in enumerate(c.terms):
            b = f"{x}_b{i}"
            ptr, _ = self.operand(op, "acc_t", 2, checks, b)
            ptrs.append(ptr)
            if s is None:
                bound.append(b)
                continue
            sv, off, lo, hi = f"{x}_s{i}", f"{x}_o{i}", f"{x}_lo{i}", f"{x}_hi{i}"
            self.emit(f"const int64_t {sv} = {self.host.scalar(s)};", 2)
            self.emit(f"int64_t {lo} = 0, {hi} = 0;", 2)
            self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {x}_n; tenspiler_i++) {{ const int64_t tenspiler_v = (int64_t){ptr}[tenspiler_i]; "
                      f"if (tenspiler_i == 0 || tenspiler_v < {lo}) {lo} = tenspiler_v; if (tenspiler_i == 0 || tenspiler_v > {hi}) {hi} = tenspiler_v; }}", 2)
            self.emit(f"const int64_t {off} = ({hi} > 127 && {lo} >= 0 && {hi} <= 255) ? 128 : 0;", 2)
            conds += [f"{sv} >= -128 && {sv} <= 127", f"{lo} - {off} >= -128 && {hi} - {off} <= 127"]
            bound.append(f"128 * ({sv} < 0 ? -{sv} : {sv})")
            cst.append(f"{sv} * {off}")
        conds += checks
        self.emit(f"const int64_t {x}_c = {' + '.join(cst)};", 2)
        conds.append(f"{x}_c >= -{2**31 - 1} && {x}_c <= {2**31 - 1}")
        bound.append(f"({x}_c < 0 ? -{x}_c : {x}_c)")
        conds.append(" + ".join(bound) + f" <= {2**31 - 1}")
        blk = 4 * dim * dim
        self.emit(f"const int64_t {x}_rb = ({x}_n + {blk - 1}) / {blk}, {x}_np = {x}_rb * {blk};", 2)
        ok = " && ".join(f"({cnd})" for cnd in conds)
        self.emit(f"if ({ok}) {{", 2)
        args = []
        for i, (ptr, is_scaled) in enumerate(zip(ptrs, scaled, strict=True)):
            buf = f"{x}_x{i}"
            ctype = "elem_t" if is_scaled else "acc_t"
            shift = f" - {x}_o{i}" if is_scaled else ""
            self.alloc(buf, ctype, f"{x}_np", 3)
            self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {x}_np; tenspiler_i++) {buf}[tenspiler_i] = tenspiler_i < {x}_n ? ({ctype})({ptr}[tenspiler_i]{shift}) : ({ctype})0;", 3)
            args.append(buf)
        for i, is_scaled in enumerate(scaled):
            if is_scaled:
                buf = f"{x}_S{i}"
                self.alloc(buf, "elem_t", str(dim * dim), 3)
                self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {dim * dim}; tenspiler_i++) {buf}[tenspiler_i] = tenspiler_i % {dim + 1} == 0 ? (elem_t){x}_s{i} : (elem_t)0;", 3)
                args.append(buf)
        if has_const:
            self.alloc(f"{x}_C", "acc_t", str(dim * dim), 3)
            self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {dim * dim}; tenspiler_i++) {x}_C[tenspiler_i] = (acc_t){x}_c;", 3)
            args.append(f"{x}_C")
        self.alloc(f"{x}_y", "acc_t", f"{x}_np", 3)
        self.emit(f"{proc.name}({', '.join(args)}, {x}_y, (uint64_t){x}_rb);", 3)
        self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {x}_n; tenspiler_i++) {out or x}[tenspiler_i] = {f'({out_ctype})' if out else ''}{x}_y[tenspiler_i];", 3)
        self.emit("} else {", 2)
        if any(scaled):
            # operands outside int8: the hand-written procedure (float32 scale factors, int32
            # operands), which has its own contract and host fallback
            self.emit("/* a scaled operand does not fit int8: the accumulator procedure with mvin scale factors */", 3)
            mark = len(self.lines)
            self.affine(c, header=False)
            self.lines[mark:] = [("        " + line) if line else line for line in self.lines[mark:]]
            self.emit("}", 2)
            self.emit("}")
            return
        self._affine_fallback(c, out, out_ctype)
        self.emit("}", 2)
        self.emit("}")

    def act_affine_float(self, c: AffineCall) -> None:
        """An fp32 sum of unit terms (+ a constant) through the ACT backend: float32 adds in
        the accumulator in the summary's order, padded to whole blocks; no contract."""
        from tenspiler.act.tiling import act_affine_proc, affine_proc_name

        dim = int(self.isa.params["dim"])
        scaled = tuple(False for _ in c.terms)
        has_const = c.constant is not None
        proc = self.procs.setdefault(affine_proc_name(scaled, has_const), act_affine_proc(dim, scaled, has_const, config="fp32"))
        x = c.name
        out, out_ctype = self._affine_target(c, "elementwise sum on Gemmini (block kernel compiled by the ACT backend)")
        self.emit("{")
        checks: list[str] = []
        ptrs = [self.operand(op, "acc_t", 2, checks, None)[0] for _, op in c.terms]
        blk = 4 * dim * dim
        self.emit(f"const int64_t {x}_rb = ({x}_n + {blk - 1}) / {blk}, {x}_np = {x}_rb * {blk};", 2)
        args = []
        for i, ptr in enumerate(ptrs):
            buf = f"{x}_x{i}"
            self.alloc(buf, "acc_t", f"{x}_np", 2)
            self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {x}_np; tenspiler_i++) {buf}[tenspiler_i] = tenspiler_i < {x}_n ? (acc_t)({ptr}[tenspiler_i]) : (acc_t)0;", 2)
            args.append(buf)
        if has_const:
            assert c.constant is not None
            self.alloc(f"{x}_C", "acc_t", str(dim * dim), 2)
            self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {dim * dim}; tenspiler_i++) {x}_C[tenspiler_i] = (acc_t)({self.host.scalar(c.constant)});", 2)
            args.append(f"{x}_C")
        self.alloc(f"{x}_y", "acc_t", f"{x}_np", 2)
        self.emit(f"if ({x}_n >= 0) {{", 2)
        self.emit(f"{proc.name}({', '.join(args)}, {x}_y, (uint64_t){x}_rb);", 3)
        self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {x}_n; tenspiler_i++) {out or x}[tenspiler_i] = {f'({out_ctype})' if out else ''}{x}_y[tenspiler_i];", 3)
        self.emit("}", 2)
        self.emit("}")

    def affine(self, c: AffineCall, header: bool = True) -> None:
        """An affine call: through the ACT backend (int8, no ReLU; :meth:`act_affine`), else
        with the hand-written accumulator procedure. ``header=False``: the call's length and
        result buffer are already declared (the ACT path's fallback)."""
        if header and not c.relu:
            if self.int_config:
                self.act_affine(c)
                return
            if all(s is None for s, _ in c.terms):
                self.act_affine_float(c)
                return
        nterms = len(c.terms)
        has_const = c.constant is not None
        pname = f"gemmini_affine{nterms}{'c' if has_const else ''}{'r' if c.relu else ''}"
        proc = self.procs.setdefault(pname, affine_proc(self.isa, nterms, has_const, pname, c.relu))
        what = "ReLU of elementwise add/sub/scale (mvout activation)" if c.relu else "elementwise add/sub/scale"
        out, out_ctype = self._affine_target(c, f"{what} on Gemmini", header)
        direct = out is not None
        self.emit("{")
        raw = f"{c.name}_raw"
        if not direct or self.int_config:
            self.alloc(raw, "acc_t", f"{c.name}_n", 2)
        checks: list[str] = []
        ptrs, scales, bounds = [], [], []
        for i, (s, op) in enumerate(c.terms):
            scale = "1" if s is None else self.host.scalar(s)
            sv = f"{c.name}_s{i}"
            self.emit(f"const {'int64_t' if self.int_config else 'double'} {sv} = {scale};", 2)
            scales.append(sv)
            bound = f"{c.name}_b{i}" if self.int_config else None
            ptr, _ = self.operand(op, "acc_t", 2, checks, bound)
            if bound is not None:
                bounds.append((bound, sv))
            ptrs.append(ptr)
        args = [*ptrs]
        if self.int_config:
            conds = list(checks)
            total = []
            for b, sv in bounds:
                conds.append(f"{sv} >= -{EXACT_F32} && {sv} <= {EXACT_F32} && {b} * ({sv} < 0 ? -{sv} : {sv}) <= {EXACT_F32}")
                total.append(f"{b} * ({sv} < 0 ? -{sv} : {sv})")
            args += [f"(float){sv}" for sv in scales]
        else:
            conds = list(checks)
            args += [f"(float){sv}" for sv in scales]
        if has_const:
            assert c.constant is not None
            cv = f"{c.name}_c"
            cst = f"{c.name}_cst"
            if self.int_config:
                self.emit(f"const int64_t {cv} = {self.host.scalar(c.constant)};", 2)
                conds.append(f"{cv} >= -{EXACT_F32} && {cv} <= {EXACT_F32}")
                total.append(f"({cv} < 0 ? -{cv} : {cv})")
            else:
                self.emit(f"const double {cv} = {self.host.scalar(c.constant)};", 2)
            self.alloc(cst, "acc_t", "DIM", 2)  # device-readable memory (TENSPILER_ALLOC), not the stack
            self.emit(f"for (int tenspiler_i = 0; tenspiler_i < DIM; tenspiler_i++) {cst}[tenspiler_i] = (acc_t){cv};", 2)
            args.append(cst)
        if self.int_config and total:
            conds.append(" + ".join(total) + f" <= {2**31 - 1}")
        target = raw if (not direct or self.int_config) else f"(acc_t *){out}"
        args += [target, f"(uint64_t){c.name}_n"]
        ok = " && ".join(f"({x})" for x in [f"{c.name}_n >= 0", *conds])
        self.emit(f"if ({ok}) {{", 2)
        self.emit(f"{proc.name}({', '.join(args)});", 3)
        if direct:
            if self.int_config:
                self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {c.name}_n; tenspiler_i++) {out}[tenspiler_i] = ({out_ctype}){raw}[tenspiler_i];", 3)
        else:
            self.emit(f"for (int64_t tenspiler_i = 0; tenspiler_i < {c.name}_n; tenspiler_i++) {c.name}[tenspiler_i] = {raw}[tenspiler_i];", 3)
        self.emit("} else {", 2)
        self._affine_fallback(c, out, out_ctype)
        self.emit("}", 2)
        self.emit("}")

    # ------------------------------------------------------------ the entry

    def outside_preconditions(self, ret: str | None) -> None:
        """Where an input violates a trip count or shape precondition of the proof
        (:mod:`tenspiler.codegen.preconditions`), the summary says nothing but C is defined (a
        loop with a negative trip count runs zero times): the entry runs the kernel's own
        loops there (:mod:`tenspiler.codegen.loop_c`) and returns."""
        if not self.preconditions:
            return
        conds = " && ".join(f"({self.host.scalar(p.left)} {p.op} {self.host.scalar(p.right)})" for p in self.preconditions)
        texts = "; ".join(p.text for p in self.preconditions)
        self.emit(f"if (!({conds})) {{")
        self.emit(f"/* outside the proof's preconditions ({texts}): the kernel's own loops, as the C runs them */", 2)
        int_type = "long long" if self.fn.python is not None else "int"
        for line in function_body_c(self.fn, ret, int_type):
            self.emit(line, 2)
        self.emit("}")

    def entry(self) -> str:
        fn = self.fn
        params = []
        for p in fn.params:
            t = param_c_type(fn, p.name)
            params.append(f"{t} *{p.name}" if isinstance(p.type, PointerType) else f"{t} {p.name}")
        ret = return_c_type(fn) or "void"
        self.outside_preconditions(None if fn.return_dtype is None else ret)
        for call in self.plan.calls:
            if isinstance(call, GemmCall):
                self.gemm(call)
            else:
                self.affine(call)
            self._refresh()
        # outputs: into buffers first (they are functions of the entry state), then stored
        copies: list[str] = []
        ret_expr = None
        for op in self.plan.outputs:
            o = op.output
            if op.host_term is None:
                continue
            if isinstance(o, ArrayOutput):
                ctype = param_c_type(fn, o.array)
                buf = self.fresh("out")
                n = self.host.length(op.host_term)
                self.emit(f"/* {show_output(o)} */")
                self.alloc(buf, ctype, n)
                self.lines.extend("    " + s for s in self.host.fill(buf, op.host_term, ctype))
                copies.append(f"for (int64_t tenspiler_i = 0; tenspiler_i < (int64_t)({n}); tenspiler_i++) ({o.array} + {self.host.scalar(o.lo)})[tenspiler_i] = {buf}[tenspiler_i];")
            else:
                ret_expr = self.fresh("ret")
                self.emit(f"/* {show_output(o)} */")
                self.emit(f"const {ret} {ret_expr} = ({ret})({self.host.scalar(op.host_term)});")
        for line in copies:
            self.emit(line)
        for name in reversed(self.frees):
            self.emit(f"TENSPILER_FREE({name});")
        if ret_expr is not None:
            self.emit(f"return {ret_expr};")
        body = ["    " + d for d in self.decls] + self.lines
        return f"{ret} {fn.name}({', '.join(params) or 'void'}) {{\n" + "\n".join(body) + "\n}\n"


def c_file(fn: Function, plan: Plan, isa: IsaDescription, header: str,
           preconditions: Sequence[Precondition] = (), search_s: float = 0.0,
           sizes: Mapping[str, int] | None = None, search_candidates: int | None = None) -> CFile:
    """The C file for ``fn`` with the device/host ``plan`` on ``isa``; ``header`` is the leading
    comment (without comment markers), followed by the schedule of each matrix product. Where
    an input violates one of ``preconditions`` (the proof's trip counts and shapes) the entry
    runs the kernel's own loops instead. A product whose sizes are all static or given in
    ``sizes`` (size parameter → value) gets the schedule search's winner: its budget is
    ``search_candidates`` candidates modelled (default
    :data:`~tenspiler.act.gemm_search.MAX_CANDIDATES`; work: the same winner on any machine), and
    ``search_s`` wall-clock seconds are its safety net (0: no search, run-time variants; a
    search stopped by the net is not used, as if there were none).

    Raises:
        CodegenError / CHostError: a host term the C emitter does not support.
    """
    e = _Emitter(fn, plan, isa, preconditions, search_s, sizes, search_candidates)
    entry = e.entry()
    if e.notes:
        header += "\n\nMatrix-product schedules:\n" + "\n".join(f"  {n}" for n in e.notes)
    procs = "\n".join(render_c(p, isa) for p in e.procs.values())
    comment = "/*\n" + "".join(f" * {line}".rstrip() + "\n" for line in header.replace("*/", "* /").splitlines()) + " */\n"
    text = (
        comment
        + "#include <stdint.h>\n#include <stdlib.h>\n#include <math.h>\n"
        + "#ifdef TENSPILER_RECORD\n#include \"tenspiler_record.h\"  /* --check: records each instruction */\n#else\n"
        + "#include \"include/gemmini.h\"\n#define TENSPILER_PROC(...) ((void)0)\n"
        + "#define TENSPILER_ALLOC(bytes) malloc(bytes)\n#define TENSPILER_FREE(p) free(p)\n#endif\n"
        + "#define TENSPILER_MIN(a, b) ((a) < (b) ? (a) : (b))\n#define TENSPILER_MAX(a, b) ((a) > (b) ? (a) : (b))\n\n"
        + "/* device calls whose run-time contract failed and that the host computed instead */\n"
        + "long tenspiler_gemmini_fallbacks = 0;\n"
        + "\n"
        + prelude() + "\n"
        + procs + "\n"
        + entry
    )
    return CFile(text, fn.name, dict(e.procs), notes=list(e.notes))
