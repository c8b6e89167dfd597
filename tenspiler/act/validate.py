"""An independent validator of compiled tensor-instruction streams (ACT §3.4, §6.2, §7.3).

ACT's semantic equivalence (§3.4, Def. 8–10): the HBM is initialised with the byte-flattened
inputs and the constant section, the concrete instructions run in order (Def. 6), and then
the HBM holds the inputs unchanged and the output where the layout declares it. Phase 2 is
sound (§7.3) because every slice an instruction reads still holds the value its pii operand
names: live slices never overlap (CSP_4). This module checks these properties on the
instruction stream itself, re-deriving everything from the stream, the description and the
:class:`~tenspiler.act.pii.HbmLayout` (it shares no code with the allocator):

1. every instruction binds (:func:`~tenspiler.act.tensor_isa.bind`): α in range, in-place
   equalities, every slice inside its buffer;
2. every HBM window lies inside the modelled HBM ``[0, layout.size)``;
3. reads see live data. The stream is simulated keeping, per on-chip element and per HBM byte
   of a layout region, its **last writer** (an instruction index; the inputs and constants
   are pseudo-writers) and its position in that writer's output window. Every element read
   must have been written; with ``producers`` its last writer (and, if asked, its position)
   must be the one the pii graph names; and an instruction whose result is never read nor
   part of the output is reported (its value was overwritten before use);
4. no instruction writes a byte of an input or constant region;
5. every byte of the output is written, and no instruction writes HBM outside it.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache
from itertools import pairwise
from typing import NamedTuple

import numpy as np

from tenspiler.act.graph import DTYPES
from tenspiler.act.pii import HbmLayout, Region
from tenspiler.act.tensor_isa import Slice, TensorIsa, TensorIsaError, TInst, bind

__all__ = ["Producer", "Sources", "ValidationError", "problems", "validate"]

Producer = int | str
"""A writer: an instruction index, or an input (its region name, or ``"input NAME"``), or a
constant (``"const ID"``, ``ID`` the const node id of :attr:`HbmLayout.constants`)."""
Sources = Collection[Producer] | Mapping[Producer, tuple[int, int]]
"""The writers allowed for the elements of one slice read. A mapping ``{w: (dr, dc)}`` also
fixes positions: element ``(r, c)`` of the slice must be element ``(r + dr, c + dc)`` of
``w``'s output window (on-chip: rows and elements; HBM: rows and bytes; an input's or
constant's window is its region)."""


class ValidationError(ValueError):
    """A tensor-instruction stream that breaks ACT §3.4; ``problems`` lists every problem
    found, each naming the instruction index (or ``output NAME`` / ``layout``)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(f"{len(problems)} problem(s):\n" + "\n".join(problems))
        self.problems = problems


@lru_cache(maxsize=4096)
def _grid(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row index, column index and row-major linear index of a ``rows × cols`` window."""
    lin = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    out = (lin // cols, lin % cols, lin)
    for a in out:
        a.setflags(write=False)
    return out


def _ranges(xs: np.ndarray) -> str:
    """Sorted ints as ``[lo, hi)`` runs (the first five)."""
    xs = np.unique(xs)
    breaks = np.nonzero(np.diff(xs) != 1)[0]
    runs = list(zip(xs[np.r_[0, breaks + 1]], xs[np.r_[breaks, len(xs) - 1]], strict=True))
    text = ", ".join(f"[{lo}, {hi + 1})" for lo, hi in runs[:5])
    return text + (", …" if len(runs) > 5 else "")


def _misplaced(er: np.ndarray, ec: np.ndarray, w: int | np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Which elements are not element ``(er, ec)`` of a window ``w`` wide (``pos``: their
    row-major index in their writer's window)."""
    return (ec < 0) | (ec >= w) | (er * w + ec != pos)


class _Win(NamedTuple):
    """A concrete slice (as :class:`~tenspiler.act.tensor_isa.Window`); HBM: ``end`` is one
    past its last byte."""

    hbm: bool
    buffer: str
    start: int
    rows: int
    cols: int
    dtype: str
    stride: int
    end: int


def _window(isa: TensorIsa, s: Slice, alpha: Mapping[str, int], beta: Mapping[str, int]) -> _Win:
    """Slice ``s`` under α, β (already checked by :func:`~tenspiler.act.tensor_isa.bind`)."""
    buf = isa.buffer(s.buffer)
    rows = s.rows if isinstance(s.rows, int) else alpha[s.rows]
    cols = s.cols if isinstance(s.cols, int) else alpha[s.cols]
    if not buf.hbm:
        return _Win(False, buf.name, beta[s.start], rows, cols, buf.dtype, 0, 0)
    dtype = s.dtype or "s8"
    size = DTYPES[dtype].itemsize
    stride = beta[s.stride] if s.stride else cols * size
    return _Win(True, buf.name, beta[s.start], rows, cols, dtype, stride, beta[s.start] + (rows - 1) * stride + cols * size)


class _Region:
    """Last writers of the bytes ``[start, end)`` of one layout region; materialised on the
    first write (until then an input's bytes hold the input, an output's nothing)."""

    def __init__(self, r: Region, kind: str, code: int, label: str) -> None:
        self.r, self.kind, self.code, self.label = r, kind, code, label
        self.start, self.end = r.start, r.end
        self.rowbytes = r.cols * DTYPES[r.dtype].itemsize
        self.stride = r.stride or self.rowbytes
        self.lw: np.ndarray | None = None
        self.pos: np.ndarray | None = None

    def data(self, off: np.ndarray) -> np.ndarray:
        """Which byte offsets belong to the tensor (not to a gap between rows)."""
        row = off // self.stride
        return (row < self.r.rows) & (off - row * self.stride < self.rowbytes)

    def get(self, off: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.lw is not None and self.pos is not None:
            return self.lw[off], self.pos[off]
        if self.kind == "output":
            return np.full(off.shape, -1, np.int64), np.zeros(off.shape, np.int64)
        row = off // self.stride
        return np.where(self.data(off), self.code, -1), row * self.rowbytes + off - row * self.stride

    def set(self, off: np.ndarray, k: int, lin: np.ndarray) -> None:
        if self.lw is None or self.pos is None:
            lw, pos = self.get(np.arange(self.end - self.start))
            self.lw, self.pos = lw.astype(np.int32), pos.astype(np.int32)
        self.lw[off], self.pos[off] = k, lin


class _Hbm:
    """The layout regions, sorted by start; bytes outside every region are never written."""

    def __init__(self, regions: list[_Region]) -> None:
        self.regions = sorted(regions, key=lambda r: r.start)
        self.starts = [r.start for r in self.regions]
        self.starts_np, self.ends_np = np.array(self.starts), np.array([r.end for r in self.regions])

    def split(self, b: np.ndarray) -> tuple[_Region | None, list[tuple[_Region, np.ndarray]]]:
        """The region holding all the bytes ``b`` (a non-decreasing array), if one does; else
        the regions holding some, each with a mask of those bytes."""
        i = bisect_right(self.starts, int(b.flat[0])) - 1
        if i >= 0 and int(b.flat[-1]) < self.regions[i].end:
            return self.regions[i], [(self.regions[i], np.ones(b.shape, bool))]
        ri = np.searchsorted(self.starts_np, b, "right") - 1
        inside = (ri >= 0) & (b < self.ends_np[ri])
        return None, [(self.regions[j], inside & (ri == j)) for j in np.unique(ri[inside])]

    def read(self, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        whole, parts = self.split(b)
        if whole is not None:
            return whole.get(b - whole.start)
        codes, pos = np.full(b.shape, -1, np.int64), np.zeros(b.shape, np.int64)
        for reg, m in parts:
            codes[m], pos[m] = reg.get(b[m] - reg.start)
        return codes, pos

    def write(self, b: np.ndarray, k: int, lin: np.ndarray, output: str) -> list[str]:
        out, outside = [], np.ones(b.shape, bool)
        for reg, m in self.split(b)[1]:
            off = b[m] - reg.start
            if reg.kind == "output":
                outside[m] = ~reg.data(off)
            else:
                outside[m] = False
                out.append(f"overwrites {reg.label} ({m.sum()} bytes in [{b[m].min()}, {b[m].max() + 1}))")
            reg.set(off, k, lin[m])
        if outside.any():
            out.append(f"writes {outside.sum()} HBM bytes outside the output {output} "
                       f"(in [{b[outside].min()}, {b[outside].max() + 1}))")
        return out


def problems(isa: TensorIsa, instructions: Sequence[TInst], layout: HbmLayout, *,
             producers: Sequence[Sequence[Sources | None] | None] | None = None,
             output_producers: Sources | None = None) -> list[str]:
    """Every way ``instructions`` break ACT §3.4 on ``layout`` (see the module docstring), in
    stream order, each message starting ``instruction K (...)``, ``output NAME`` or
    ``layout``; empty if none.

    Args:
        isa: the description the stream is for.
        instructions: the concrete tensor instructions, in order.
        layout: where inputs, output and constants lie in HBM (bytes).
        producers: per instruction (``None``: unchecked), per input slice in the
            description's order (``None``: unchecked), the :data:`Sources` allowed to have
            last written its elements — derived by the caller from the pii graph.
        output_producers: the same for the output region, read as one window at the end.

    Without ``producers`` only the weaker property (everything read was written, no value
    lost unread) is checked; only the mapping form of :data:`Sources` makes a passing stream
    compute the pii graph's values. Memory: 8 bytes per on-chip element, per byte of the
    output region and of any region written."""
    n, out = len(instructions), []
    names: list[str] = []
    labels: dict[Producer, int] = {}
    regions = []
    for r in layout.inputs:
        labels[r.name] = labels[f"input {r.name}"] = n + len(names)
        names.append(f"input {r.name}")
        regions.append(_Region(r, "input", n + len(names) - 1, names[-1]))
    for cid, r in layout.constants:
        labels[f"const {cid}"] = n + len(names)
        names.append(f"const {cid}")
        regions.append(_Region(r, "const", n + len(names) - 1, names[-1]))
    width = np.array([0] * n + [r.rowbytes for r in regions], np.int64)
    regions.append(_Region(layout.output, "output", -1, f"output {layout.output.name}"))
    out += _check_layout(isa, layout, regions)
    hbm = _Hbm(regions)
    chip = {b.name: (np.full((b.rows, b.width), -1, np.int32), np.zeros((b.rows, b.width), np.int32))
            for b in isa.buffers[1:]}
    used = np.zeros(n + len(names), bool)
    used[n:] = True  # an input need not be read
    flagged = np.zeros(n, bool)

    def label(c: int) -> str:
        return "nothing" if c < 0 else f"instruction {c}" if c < n else names[c - n]

    def resolve(src: Sources) -> tuple[dict[int, tuple[int, int] | None], list[str]]:
        items = src.items() if isinstance(src, Mapping) else ((p, None) for p in src)
        res: dict[int, tuple[int, int] | None] = {}
        msgs = []
        for p, at in items:
            c = int(p) if isinstance(p, int | np.integer) and 0 <= p < n else labels.get(p) if isinstance(p, str) else None
            if c is None:
                msgs.append(f"unknown producer {p!r}")
            else:
                res[c] = at
        return res, msgs

    def check(codes: np.ndarray, pos: np.ndarray, rr: np.ndarray, cc: np.ndarray, src: Sources | None) -> list[str]:
        """Mark the last writers of a read as used; compare them with ``src``."""
        w0 = int(codes.flat[0])
        u, inv = (np.array([w0]), None) if bool((codes == w0).all()) else np.unique(codes, return_inverse=True)
        used[u[u >= 0]] = True
        if src is None:
            return []
        allowed, msgs = resolve(src)
        wrong = [int(c) for c in u if c >= 0 and c not in allowed]
        if wrong:
            msgs.append(f"last written by {', '.join(map(label, wrong))}; expected "
                        f"{', '.join(map(label, allowed)) or 'nothing'}")
        at = [allowed.get(int(c)) for c in u]
        if all(a is None for a in at):
            return msgs
        if inv is None:  # one writer, with a position
            dr, dc = at[0] or (0, 0)
            bad = _misplaced(rr + dr, cc + dc, int(width[w0]), pos)
        else:
            inv = inv.reshape(codes.shape)
            dr_, dc_ = (np.array([0 if a is None else a[j] for a in at], np.int64)[inv] for j in (0, 1))
            chk = np.array([a is not None for a in at])[inv]
            bad = chk & _misplaced(rr + dr_, cc + dc_, width[np.maximum(u, 0)][inv], pos)
        if bad.any():
            msgs.append(f"{bad.sum()} elements are not at their expected positions in "
                        f"{', '.join(label(int(c)) for c in np.unique(codes[bad]))}")
        return msgs

    def hbm_bytes(w: _Win | Region) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        g = _grid(w.rows, w.cols * DTYPES[w.dtype].itemsize)
        return w.start + g[0] * w.stride + g[1], g

    if producers is not None and len(producers) != n:
        out.append(f"producers: {len(producers)} entries for {n} instructions (ignored)")
        producers = None
    for k, inst in enumerate(instructions):
        try:
            spec, alpha, beta = bind(isa, inst)
        except TensorIsaError as e:
            out.append(f"instruction {k}: {e}")
            flagged[k] = True
            continue
        wins = [_window(isa, s, alpha, beta) for s in (spec.output, *spec.inputs)]
        msgs = [f"{'output' if i == 0 else f'x{i}'}: HBM window [{w.start}, {w.end}) outside the modelled HBM "
                f"[0, {layout.size})" for i, w in enumerate(wins) if w.hbm and w.end > layout.size]
        srcs = producers[k] if producers is not None else None
        if srcs is not None and len(srcs) != len(spec.inputs):
            msgs.append(f"producers: {len(srcs)} entries for {len(spec.inputs)} input slices (ignored)")
            srcs = None
        if not msgs:
            for i, w in enumerate(wins[1:], 1):
                if w.hbm:
                    b, (rr, cc, _) = hbm_bytes(w)
                    codes, pos = hbm.read(b)
                    if (never := codes < 0).any():
                        msgs.append(f"x{i}: reads {never.sum()} never-written HBM bytes in "
                                    f"[{b[never].min()}, {b[never].max() + 1})")
                else:
                    lw, lpos = chip[w.buffer]
                    codes, pos = lw[w.start:w.start + w.rows, :w.cols], lpos[w.start:w.start + w.rows, :w.cols]
                    rr, cc, _ = _grid(w.rows, w.cols)
                    if (never := codes < 0).any():
                        msgs.append(f"x{i}: reads never-written {w.buffer} rows "
                                    f"{_ranges(w.start + np.nonzero(never.any(1))[0])}")
                msgs += [f"x{i}: {m}" for m in check(codes, pos, rr, cc, None if srcs is None else srcs[i - 1])]
            w = wins[0]
            if w.hbm:
                b, (_, _, lin) = hbm_bytes(w)
                width[k] = b.shape[1]
                msgs += hbm.write(b, k, lin, layout.output.name)
            else:
                lw, lpos = chip[w.buffer]
                lw[w.start:w.start + w.rows, :w.cols] = k
                lpos[w.start:w.start + w.rows, :w.cols] = _grid(w.rows, w.cols)[2]
                width[k] = w.cols
        if msgs:
            flagged[k] = True
            out += [f"instruction {k} ({inst}): {m}" for m in msgs]

    o = layout.output
    b, (rr, cc, _) = hbm_bytes(o)
    codes, pos = hbm.read(b)
    if (never := codes < 0).any():
        out.append(f"output {o.name}: {never.sum()} bytes never written (rows {_ranges(np.nonzero(never.any(1))[0])})")
    out += [f"output {o.name}: {m}" for m in check(codes, pos, rr, cc, output_producers)]
    out += [f"instruction {k} ({instructions[int(k)]}): its result is never read (overwritten before use, or dead)"
            for k in np.nonzero(~used[:n] & ~flagged)[0]]
    return out


def _check_layout(isa: TensorIsa, layout: HbmLayout, regions: list[_Region]) -> list[str]:
    out = []
    if layout.size > isa.hbm.rows:
        out.append(f"layout: {layout.size} bytes exceed the HBM's {isa.hbm.rows}")
    for r in regions:
        if r.start < 0 or r.r.rows < 1 or r.r.cols < 1 or (r.r.rows > 1 and r.r.stride < r.rowbytes):
            out.append(f"layout: {r.label} is not a region of rows ≥ 1 × cols ≥ 1 at a byte ≥ 0, "
                       f"rows stride ≥ {r.rowbytes} bytes apart")
    by_start = sorted(regions, key=lambda r: r.start)
    out += [f"layout: {a.label} [{a.start}, {a.end}) and {b.label} [{b.start}, {b.end}) overlap"
            for a, b in pairwise(by_start) if b.start < a.end]
    return out


def validate(isa: TensorIsa, instructions: Sequence[TInst], layout: HbmLayout, *,
             producers: Sequence[Sequence[Sources | None] | None] | None = None,
             output_producers: Sources | None = None) -> None:
    """Check a compiled stream against ACT §3.4 (see :func:`problems` for the arguments).

    Raises:
        ValidationError: listing every problem :func:`problems` finds."""
    found = problems(isa, instructions, layout, producers=producers, output_producers=output_producers)
    if found:
        raise ValidationError(found)
