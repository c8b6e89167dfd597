"""The XLA-HLO export of the accelerator-bound part, registered as ``"hlo"``:
``lift FILE --to hlo [--hlo-sizes n=64,m=32]``.

It writes ``<fn>.hlo``: the device calls of the Gemmini plan
(:meth:`~tenspiler.codegen.gemmini.GemminiBackend.plan`, configuration chosen as for
``--to gemmini``, or ``--gemmini-config``) as tensor dataflow graphs
(:mod:`tenspiler.codegen.gemmini.act_graphs`) printed as XLA-HLO (:mod:`tenspiler.act.hlo`) in the
operator subset the released ACT backend accepts, for a user with the ACT toolchain.

File layout: a header comment (the summary, the configuration, the static sizes, the host
part and every device call that is not exported with the reason), then **one module per
exported device call**, each introduced by a ``// ---- module <fn>_<call> ----`` comment line
followed by comments naming what the module computes and what each parameter holds.
XLA's parser takes one module per text: cut the file at those lines
(:func:`tenspiler.act.hlo.split_modules`; ``//`` lines are HLO comments). A kernel without
device calls gets a file saying there is no accelerator-bound part (not an error, so
``--to all`` works for every kernel).

Sizes: HLO is statically shaped. The kernel's size parameters
(:func:`~tenspiler.codegen.gemmini.act_graphs.size_parameters`) take the values of ``--hlo-sizes``
(``name=value,...``; option ``sizes``), every other one 64; the file's header states them.
An unknown name, a value below 1 or sizes that violate the summary's shape preconditions
are bad input (:class:`~tenspiler.errors.BadInput`, exit 2).

``--check`` runs :class:`~tenspiler.codegen.gemmini.act_graphs.PlanRunner` (``GeneratedCode.runner``):
each exported call's graph, rebuilt at the sizes of each check input, evaluated by
:func:`tenspiler.act.graph.evaluate` (the semantics the HLO text has; XLA itself runs the
printed text only in ``tests/test_act_hlo.py``), the host part by the TensIR interpreter.
"""

from __future__ import annotations

import base64
import pickle
import re
from collections.abc import Mapping
from typing import Any

from tenspiler.act.hlo import MODULE_SEPARATOR, to_hlo
from tenspiler.codegen.base import GeneratedCode, Runner, decline_strided_outputs, returned_outputs
from tenspiler.codegen.gemmini import GemminiBackend
from tenspiler.codegen.gemmini.act_graphs import (
    Exported,
    PlanExport,
    export_plan,
    runner_spec,
    size_parameters,
)
from tenspiler.codegen.gemmini.lower import Plan
from tenspiler.codegen.registry import register_backend
from tenspiler.errors import BadInput, CodegenError
from tenspiler.ir import interp
from tenspiler.ir.printer import show, show_output, show_summary
from tenspiler.ir.terms import ArrayOutput, ProgramSummary, Term
from tenspiler.loops.ir import Function

__all__ = ["DEFAULT_SIZE", "HLO", "HloBackend", "parse_sizes"]

#: the value of every size parameter ``--hlo-sizes`` does not name
DEFAULT_SIZE = 64

_SIZE_ITEM = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([0-9]+)\s*")


def parse_sizes(text: str) -> dict[str, int]:
    """``"n=64,m=32"`` as ``{"n": 64, "m": 32}``.

    Raises:
        ValueError: not ``name=value`` items separated by commas, a repeated name, or a
            value below 1 (the message says which item).
    """
    out: dict[str, int] = {}
    if not text.strip():
        raise ValueError("expected name=value[,name=value...], got an empty string")
    for item in text.split(","):
        m = _SIZE_ITEM.fullmatch(item)
        if m is None:
            raise ValueError(f"{item.strip()!r} is not name=value with a non-negative integer value (expected e.g. n=64,m=32)")
        name, value = m.group(1), int(m.group(2))
        if name in out:
            raise ValueError(f"size {name!r} given twice")
        if value < 1:
            raise ValueError(f"size {name}={value}: sizes must be at least 1 (HLO shapes are static and non-empty)")
        out[name] = value
    return out


class HloBackend:
    """XLA-HLO of the device calls (see the module docstring)."""

    name = "hlo"

    def __init__(self, sizes: Mapping[str, int] | None = None, config: str | None = None) -> None:
        self.sizes = dict(sizes or {})
        self.config = config
        self._gemmini = GemminiBackend(config=config)

    def with_options(self, **opts: Any) -> HloBackend:
        """A backend with ``sizes`` (a mapping or ``"n=64,m=32"``) / ``config`` replaced.

        Raises:
            CodegenError: an unknown option or a malformed value.
        """
        unknown = set(opts) - {"sizes", "config"}
        if unknown:
            raise CodegenError(f"hlo: unknown option(s) {', '.join(sorted(unknown))}")
        sizes = opts.get("sizes", self.sizes)
        if isinstance(sizes, str):
            try:
                sizes = parse_sizes(sizes)
            except ValueError as e:
                raise CodegenError(f"--hlo-sizes: {e}") from None
        for k, v in dict(sizes).items():
            if not isinstance(v, int) or v < 1:
                raise CodegenError(f"--hlo-sizes: size {k}={v!r} must be an integer of at least 1")
        config = opts.get("config", self.config)
        return HloBackend(sizes, None if config is None else str(config))

    def supports(self, term: Term) -> bool:
        """Whether the Gemmini plan would put any of ``term`` on the device."""
        return self._gemmini.supports(term)

    def static_sizes(self, fn: Function, ps: ProgramSummary) -> dict[str, int]:
        """The size parameters' values for ``fn`` (given or :data:`DEFAULT_SIZE`).

        Raises:
            BadInput: a given name is not a size parameter, or the sizes violate a shape
                precondition of ``ps``.
        """
        names = size_parameters(fn, ps)
        unknown = sorted(set(self.sizes) - set(names))
        if unknown:
            known = ", ".join(names) or "none"
            what = "is not a size parameter" if len(unknown) == 1 else "are not size parameters"
            raise BadInput(f"--hlo-sizes: {', '.join(unknown)} {what} of {fn.name} (its size parameters: {known})")
        sizes = {n: self.sizes.get(n, DEFAULT_SIZE) for n in names}
        for a, b in ps.preconditions:
            try:
                ok = interp.evaluate(a, sizes) == interp.evaluate(b, sizes)
            except KeyError:
                continue  # not about sizes only
            if not ok:
                raise BadInput(f"--hlo-sizes: the sizes {_fmt_sizes(sizes)} violate the kernel's precondition "
                                f"{show(a)} == {show(b)}")
        return sizes

    def generate(self, fn: Function, ps: ProgramSummary) -> GeneratedCode:
        decline_strided_outputs(ps, "HLO")
        sizes = self.static_sizes(fn, ps)
        config, plan = self._gemmini.plan(fn, ps)
        ex = export_plan(plan, sizes)
        text = hlo_file(fn, ps, plan, ex, config, chosen=self.config is not None)
        spec = runner_spec(fn, ps, plan)
        return GeneratedCode(
            backend=self.name, language="hlo", filename_suffix=".hlo", text=text, entry=fn.name,
            params=_entry_params(fn),
            runner=Runner(_runner_text(fn, ps, spec),
                          "the exported device graphs, rebuilt at each input's sizes, evaluated by tenspiler.act.graph "
                          "(the HLO text's semantics) + the host part by the TensIR interpreter"),
            placement=_placement(plan, ex, config, sizes),
        )


def _fmt_sizes(sizes: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sizes.items()) or "(none)"


def _module_name(fn: Function, call: str) -> str:
    return f"{fn.name}_{call}"


def hlo_file(fn: Function, ps: ProgramSummary, plan: Plan, ex: PlanExport, config: str, chosen: bool) -> str:
    """The text of ``<fn>.hlo`` (see the module docstring)."""
    lines = [
        f"{fn.name}.hlo -- generated by tenspiler: the accelerator-bound part of the verified program summary",
        *("  " + line for line in show_summary(ps).splitlines()),
        "as XLA-HLO in the operator subset of the released ACT backend (parameter, constant, broadcast, slice,",
        "add, dot, divide, concatenate, reshape, transpose, convert, reduce(add), exponential; s8 / s32 / f32).",
        "",
        f"Device calls: the Gemmini plan, {config} configuration"
        + (" (--gemmini-config)." if chosen else " (chosen by tenspiler: it puts the most on the device)."),
    ]
    if ex.sizes:
        given = ", ".join(f"{k}={v}" for k, v in ex.sizes.items())
        lines.append(f"Static sizes: {given} (default: every size parameter {DEFAULT_SIZE}; choose with --hlo-sizes name=value,...).")
    else:
        lines.append(f"Static sizes: the kernel has no size parameters (default for each: {DEFAULT_SIZE}; --hlo-sizes name=value,...).")
    host = [(op.output, op.host_term) for op in plan.outputs
            if op.host_term is not None and getattr(op.host_term, "name", None) not in op.calls]
    if not plan.calls:
        lines += ["", "No accelerator-bound part: the Gemmini plan puts nothing of this kernel on the device, so this file",
                  "holds no HLO module. Why:"]
        notes = list(dict.fromkeys(n for op in plan.outputs for n in op.notes))
        lines += [f"  - {n}" for n in notes] or ["  - (no matrix product or affine elementwise term)"]
        return "\n".join(f"// {line}".rstrip() for line in lines) + "\n"
    if not ex.exported:
        lines += ["No HLO module: none of the plan's device calls can be expressed in the subset (below), so",
                  "this file holds no module."]
    else:
        lines += [
            f"{len(ex.exported)} module(s) follow, one per exported device call. Each starts at a line",
            f"'{MODULE_SEPARATOR}NAME ----'; XLA's parser and the ACT toolchain take one module per text:",
            "cut the file at those lines (tenspiler.act.hlo.split_modules).",
            "Integer arithmetic wraps in HLO: a module equals the summary's value when no int32 sum overflows"
            if config == "int8" else "f32 modules compute in float32 (the summary's reals within the float tolerance).",
        ]
    if host:
        lines += ["", "Host part (not exported; device results appear by call name):"]
        lines += [f"  {show_output(o)}: the host computes {show(t)}" for o, t in host]
    if ex.skipped:
        lines += ["", "Device calls not exported (the host computes them):"]
        lines += [f"  {s.call} = {show(s.value)}: {s.reason}" for s in ex.skipped]
    out = [f"// {line}".rstrip() for line in lines]
    for e in ex.exported:
        out += ["", *_module_text(fn, e)]
    return "\n".join(out) + "\n"


def _module_text(fn: Function, e: Exported) -> list[str]:
    name = _module_name(fn, e.call)
    root = e.graph.nodes[e.graph.root]
    head = [
        f"{MODULE_SEPARATOR}{name} ----",
        f"// {e.call} = {show(e.value)} ({e.what})",
        "// parameters:" if e.params else "// parameters: none",
        *(f"//   {p.name}: {p.dtype}[{','.join(map(str, p.shape))}] = {p.what}" for p in e.params),
        f"// result: {root.dtype}[{','.join(map(str, root.shape))}]" + (" (a scalar)" if e.scalar else ""),
    ]
    return head + to_hlo(e.graph, name).rstrip("\n").splitlines()


def _placement(plan: Plan, ex: PlanExport, config: str, sizes: Mapping[str, int]) -> dict[str, Any]:
    exported = {e.call for e in ex.exported}
    skipped = {s.call: s.reason for s in ex.skipped}
    d = plan.to_json()
    outs = []
    listed: list[dict[str, Any]] = d["outputs"]  # type: ignore[assignment]
    for o, op in zip(listed, plan.outputs, strict=True):
        calls = [c for c in op.calls if c in exported]
        notes = [f"{c}: not exported to HLO ({skipped[c]}); the host computes it" for c in op.calls if c in skipped]
        if not calls:
            where = "host"
        elif o["where"] == "device" and len(calls) == len(op.calls):
            where = "device"
        else:
            where = "mixed"
        outs.append({**o, "where": where, "device_kernels": calls, "notes": [*o["notes"], *notes]})
    d["outputs"] = outs
    d["config"] = {"config": config, "sizes": dict(sizes)}
    d["modules"] = [e.call for e in ex.exported]
    d["skipped"] = skipped
    return d


def _entry_params(fn: Function) -> tuple[str, ...]:
    if fn.cxx is not None:
        return tuple(v if isinstance(v, str) else v.name for v in fn.cxx.signature)
    return tuple(p.name for p in fn.params)


def _runner_text(fn: Function, ps: ProgramSummary, spec: Any) -> str:
    """The runner: the proof's preconditions checked (``ValueError``, as the NumPy entry),
    then the split computed by :class:`~tenspiler.codegen.gemmini.act_graphs.PlanRunner`."""
    from tenspiler.codegen.numpy_backend import cxx_adapter, runner_guards

    outs = [("array", o.array) if isinstance(o, ArrayOutput) else ("return", "") for o in returned_outputs(ps)]
    values = [f"state[{name!r}]" if kind == "array" else "state['return']" for kind, name in outs]
    ret = "return None" if not values else f"return {values[0]}" if len(values) == 1 else f"return ({', '.join(values)})"
    names = {p.name: f"p_{p.name}" for p in fn.params}
    flat = "_flat" if fn.cxx is not None else fn.name
    payload = base64.b64encode(pickle.dumps(spec, protocol=4)).decode()
    guards, helpers = runner_guards(fn, ps, names)
    lines = [
        f'"""Runs {fn.name}.hlo\'s split of the kernel: the exported device graphs (rebuilt at the',
        'input sizes) by tenspiler.act.graph.evaluate, the rest by the TensIR interpreter."""',
        "import base64",
        "import pickle",
        "",
        "import numpy as np",
        "",
        "from tenspiler.codegen.gemmini.act_graphs import PlanRunner",
        "",
        f"_RUNNER = PlanRunner(pickle.loads(base64.b64decode({payload!r})))",
        *(f"\n\n{h}" for h in helpers),
        "",
        "",
        f"def {flat}({', '.join(names[p.name] for p in fn.params)}):",
        *("\n".join(f"    {line}" for line in g.split("\n")) for g in guards),
        f"    state = _RUNNER.run({{{', '.join(f'{p.name!r}: {names[p.name]}' for p in fn.params)}}})",
        f"    {ret}",
    ]
    text = "\n".join(lines) + "\n"
    if fn.cxx is not None:
        text += "\n\n" + cxx_adapter(fn, ps, flat, names) + "\n"
    return text


HLO = HloBackend()
register_backend(HLO)
