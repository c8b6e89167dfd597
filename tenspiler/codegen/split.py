"""Partial lowering: which part of a program summary runs on an accelerator, which on the host.

A device backend (TPC-C for Intel Gaudi, later Gemmini) can compute only some TensIR ops.
:func:`split_summary` divides a :class:`~tenspiler.ir.terms.ProgramSummary` between the
device and a host program (NumPy) according to the backend's :class:`DeviceRules`, so that
nothing is silently dropped: every output gets an :class:`OutputPlacement` that says what the
device computes, what the host computes, and why.

The shape of a split (the rules decide each node; the algorithm is generic):

* **Map kernels** (``kind == "map"``): an array output ``x[lo:hi] = v`` whose root op the
  device supports is computed by one device kernel that writes the output range. Inside
  ``v``, a tensor subterm the device cannot compute, or a scalar subterm it cannot compute
  inline (a reduction, a division, ``size``...), is *hoisted*: the host computes it first
  (:class:`HostValue`) and passes it to the kernel as an input tensor or a scalar parameter;
  in the kernel's :attr:`DeviceKernel.term` it is the leaf ``TensorVar(name)`` /
  ``ScalarVar(name)``. Views (``take``/``tail``/``slice`` chains ending in an input array)
  are leaves of the device term: the host sets them up as tensor descriptors.
* **Reduction kernels** (``kind == "reduce_sum"`` / ``"reduce_max"``): a ``reduce_sum`` /
  ``reduce_max`` anywhere in a host term whose tensor argument the device supports is
  computed on the device as per-core partial results that the host combines; in the host
  term it is the leaf ``ScalarVar(kernel name)``.
* Everything else runs on the host: an array output whose root op the device lacks (e.g.
  ``reduce_rows``, a matrix–vector product) and every scalar output (with its reductions
  possibly on the device).

Hoisted values and kernels are shared by equal terms (a summary that uses
``reduce_max(take(a, n))`` twice launches one kernel).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from tenspiler.codegen.base import op_key, output_term, returned_outputs
from tenspiler.ir.printer import show, show_output
from tenspiler.ir.terms import (
    ArrayOutput,
    Output,
    ProgramSummary,
    ReduceMax,
    ReduceSum,
    ScalarVar,
    Slice,
    Tail,
    Take,
    TensorVar,
    Term,
    children,
    is_tensor,
    map_children,
)
from tenspiler.loops.ir import DType

__all__ = [
    "DeviceKernel",
    "DeviceRules",
    "HostValue",
    "OutputPlacement",
    "Split",
    "host_ops",
    "is_view",
    "split_summary",
]

KernelKind = Literal["map", "reduce_sum", "reduce_max"]
_PARTIALS = {"reduce_sum": "sums", "reduce_max": "maxima", "map": "results"}


class DeviceRules(Protocol):
    """What one device can compute; :func:`split_summary` asks node by node."""

    def node_problem(self, t: Term) -> str | None:
        """``None`` when the device can compute the root node of the tensor term ``t``
        (its op, dtype and shape; its children are asked separately), else a short reason
        why not, e.g. ``"float division is not exact on TPC"``. Asked for views too
        (``TensorVar``, ``take``/``tail``/``slice``)."""
        ...

    def inline_scalar(self, s: Term) -> bool:
        """Whether the scalar term ``s`` (all of it) can be computed inside a kernel;
        otherwise the host computes it and passes it as a scalar parameter."""
        ...

    def reduce_problem(self, r: ReduceSum | ReduceMax) -> str | None:
        """``None`` when the device can compute partial results of the reduction ``r``
        (its tensor argument is asked with :meth:`node_problem`), else why not."""
        ...

    def output_problem(self, o: ArrayOutput) -> str | None:
        """``None`` when a device kernel can write the array of ``o`` (its element type),
        else why not."""
        ...


@dataclass(frozen=True)
class HostValue:
    """A value the host computes and passes to a device kernel.

    Attributes:
        name: the kernel parameter that carries it (``"h0"``); the device term refers to it
            as ``TensorVar(name)`` or ``ScalarVar(name)``.
        term: what the host computes (a host term: it may use reduction kernels' results,
            ``ScalarVar(kernel.name)``).
        source: the summary subterm it replaces.
        reason: why the device does not compute it.
    """

    name: str
    term: Term
    source: Term
    reason: str

    @property
    def is_tensor(self) -> bool:
        return is_tensor(self.source)


@dataclass(frozen=True)
class DeviceKernel:
    """One device kernel.

    Attributes:
        name: ``"k0"``, ``"k1"``… (a reduction kernel's result is ``ScalarVar(name)`` in host
            terms).
        kind: ``"map"`` (writes :attr:`output`'s range) or ``"reduce_sum"`` /
            ``"reduce_max"`` (partial results the host combines).
        term: the elementwise tensor term the kernel computes (for a reduction: the reduced
            tensor), over views of the inputs, inline scalars and :attr:`host_values`.
        source: the summary subterm it computes (the output value, or the reduction).
        output: for a map kernel, the output it writes.
        host_values: names of the :class:`HostValue` parameters it takes, in first-use order.
        dtype: dtype of the result (the output value's, or the reduction's).
    """

    name: str
    kind: KernelKind
    term: Term
    source: Term
    output: ArrayOutput | None
    host_values: tuple[str, ...]
    dtype: DType


@dataclass(frozen=True)
class OutputPlacement:
    """Where one output is computed.

    Attributes:
        output: the summary output.
        where: ``"device"`` (a kernel computes it all), ``"host"`` (no device work) or
            ``"mixed"`` (device kernels and host code).
        kernels: names of the kernels that contribute, in launch order.
        host_term: ``None`` when a map kernel writes the output; otherwise the term the host
            evaluates (with reduction kernels' results as ``ScalarVar(kernel name)``).
        notes: one line per piece the host computes, with the reason.
    """

    output: Output
    where: Literal["device", "host", "mixed"]
    kernels: tuple[str, ...]
    host_term: Term | None
    notes: tuple[str, ...]


@dataclass(frozen=True)
class Split:
    """A program summary divided between a device and the host (:func:`split_summary`)."""

    kernels: tuple[DeviceKernel, ...]
    host_values: tuple[HostValue, ...]
    placements: tuple[OutputPlacement, ...]

    def kernel(self, name: str) -> DeviceKernel:
        for k in self.kernels:
            if k.name == name:
                return k
        raise KeyError(name)

    def host_value(self, name: str) -> HostValue:
        for h in self.host_values:
            if h.name == name:
                return h
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` report: per output where it runs; per kernel what it computes."""
        return {
            "outputs": [
                {
                    "output": show_output(p.output),
                    "where": p.where,
                    "device_kernels": list(p.kernels),
                    "host": None if p.host_term is None else show(p.host_term),
                    "host_ops": host_ops(p.host_term) if p.host_term is not None else [],
                    "notes": list(p.notes),
                }
                for p in self.placements
            ],
            "kernels": [
                {
                    "name": k.name,
                    "kind": k.kind,
                    "computes": show(k.source),
                    "device_term": show(k.term),
                    "device_ops": sorted({op_key(u) for u in _nodes(k.term)}),
                    "host_values": list(k.host_values),
                }
                for k in self.kernels
            ],
            "host_values": [
                {"name": h.name, "computes": show(h.source), "host": show(h.term), "reason": h.reason}
                for h in self.host_values
            ],
        }


def is_view(t: Term) -> bool:
    """``t`` is an input array or a ``take``/``tail``/``slice`` chain ending in one."""
    match t:
        case TensorVar():
            return True
        case Take(x, _) | Tail(x, _) | Slice(x, _, _):
            return is_view(x)
    return False


def host_ops(t: Term) -> list[str]:
    """Op keys the host evaluates in a host term (kernel results are leaves)."""
    return sorted({op_key(u) for u in _nodes(t) if not isinstance(u, ScalarVar | TensorVar)})


def _nodes(t: Term) -> list[Term]:
    out = [t]
    for c in children(t):
        out.extend(_nodes(c))
    return out


@dataclass
class _Builder:
    rules: DeviceRules
    taken: set[str] = field(default_factory=set)
    kernels: list[DeviceKernel] = field(default_factory=list)
    host_values: list[HostValue] = field(default_factory=list)
    _hoisted: dict[Term, HostValue] = field(default_factory=dict)
    _reductions: dict[Term, DeviceKernel] = field(default_factory=dict)
    #: host values used by the kernel being built (innermost last)
    _uses: list[list[str]] = field(default_factory=list)
    #: why reductions met while building host terms stay on the host
    _host_notes: list[str] = field(default_factory=list)

    def fresh(self, base: str) -> str:
        name = base
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name

    # ---------------------------------------------------------------- host side

    def host(self, t: Term) -> Term:
        """``t`` as a host term: reductions the device supports become kernel results."""
        if isinstance(t, ReduceSum | ReduceMax) and not self._device_reduction(t):
            why = self.rules.reduce_problem(t) or self.rules.node_problem(t.tensor)
            self._host_notes.append(f"{op_key(t)}({show(t.tensor)}) on the host: {why}")
        if isinstance(t, ReduceSum | ReduceMax) and self._device_reduction(t):
            k = self._reductions.get(t)
            if k is None:
                term, used = self._device_term(t.tensor)
                kind: KernelKind = "reduce_sum" if isinstance(t, ReduceSum) else "reduce_max"
                k = DeviceKernel(self.fresh(f"k{len(self.kernels)}"), kind, term, t, None, used, t.dtype)
                self.kernels.append(k)
                self._reductions[t] = k
            return ScalarVar(k.name, t.dtype)
        return map_children(t, self.host)

    def _device_reduction(self, r: ReduceSum | ReduceMax) -> bool:
        return self.rules.reduce_problem(r) is None and self.rules.node_problem(r.tensor) is None

    # ---------------------------------------------------------------- device side

    def _device_term(self, t: Term) -> tuple[Term, tuple[str, ...]]:
        self._uses.append([])
        try:
            term = self._device(t)
        finally:
            used = self._uses.pop()
        return term, tuple(dict.fromkeys(used))

    def _device(self, t: Term) -> Term:
        if not is_tensor(t):
            return t if self.rules.inline_scalar(t) else self._hoist(t, "computed on the host (not inline on the device)")
        problem = self.rules.node_problem(t)
        if problem is not None:
            return self._hoist(t, problem)
        if is_view(t):
            return t  # a tensor descriptor the host sets up; its bounds are host scalars
        return map_children(t, self._device)

    def _hoist(self, t: Term, reason: str) -> Term:
        h = self._hoisted.get(t)
        if h is None:
            name = self.fresh(f"h{len(self.host_values)}")
            h = HostValue(name, self.host(t), t, reason)
            self.host_values.append(h)
            self._hoisted[t] = h
        self._uses[-1].append(h.name)
        return TensorVar(h.name, t.dtype) if is_tensor(t) else ScalarVar(h.name, t.dtype)

    # ---------------------------------------------------------------- outputs

    def place(self, o: Output) -> OutputPlacement:
        before = len(self.kernels)
        value = output_term(o)
        if isinstance(o, ArrayOutput):
            problem = self.rules.output_problem(o) or self.rules.node_problem(value)
            if problem is None:
                term, used = self._device_term(value)
                k = DeviceKernel(self.fresh(f"k{len(self.kernels)}"), "map", term, value, o, used, value.dtype)
                self.kernels.append(k)
                notes = tuple(f"{h}: {show(self._hv(h).source)} on the host: {self._hv(h).reason}" for h in used)
                kernels = tuple(x.name for x in self.kernels[before:])
                where: Literal["device", "host", "mixed"] = "mixed" if used else "device"
                return OutputPlacement(o, where, kernels, None, notes)
            notes_list = [f"{op_key(value)}: {problem}"]
        else:
            notes_list = ["scalar result: evaluated on the host"]
        self._host_notes.clear()
        host_term = self.host(value)
        notes_list.extend(dict.fromkeys(self._host_notes))
        kernels = tuple(_kernel_refs(host_term, {k.name for k in self.kernels}))
        where = "mixed" if kernels else "host"
        if kernels:
            notes_list.append(
                "device computes " + ", ".join(
                    f"{k} = partial {_PARTIALS[self._kernel(k).kind]} of {show(self._kernel(k).term)}"
                    for k in kernels
                ) + "; the host combines them"
            )
        return OutputPlacement(o, where, kernels, host_term, tuple(notes_list))

    def _hv(self, name: str) -> HostValue:
        return next(h for h in self.host_values if h.name == name)

    def _kernel(self, name: str) -> DeviceKernel:
        return next(k for k in self.kernels if k.name == name)


def _kernel_refs(t: Term, names: set[str]) -> list[str]:
    out: list[str] = []

    def walk(u: Term) -> None:
        if isinstance(u, ScalarVar) and u.name in names and u.name not in out:
            out.append(u.name)
        for c in children(u):
            walk(c)

    walk(t)
    return out


def split_summary(
    ps: ProgramSummary,
    rules: DeviceRules,
    taken: set[str] | frozenset[str] = frozenset(),
    outputs: Callable[[ProgramSummary], tuple[Output, ...]] = returned_outputs,
) -> Split:
    """Divide the (returned) outputs of ``ps`` between the device and the host.

    Kernel names (``k0``, ``k1``…) and host value names (``h0``…) avoid ``taken`` (pass the
    function's parameter names) by appending underscores.
    """
    b = _Builder(rules, set(taken))
    placements = tuple(b.place(o) for o in outputs(ps))
    return Split(tuple(b.kernels), tuple(b.host_values), placements)
