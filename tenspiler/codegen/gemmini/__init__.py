"""The Gemmini backend, registered as ``"gemmini"``: ``lift FILE --to gemmini``.

From a verified summary it emits ``<fn>.gemmini.c``: the parts Gemmini can compute (matrix
products, elementwise add/sub/scale; :mod:`.lower`) as device procedures issuing ``gemmini.h``
instructions (:mod:`.procs`, :mod:`.schedule`), and everything else as host C code
(:mod:`tenspiler.codegen.c_host`), in one function with the kernel's C parameters
(:mod:`.cfile`). ``GeneratedCode.placement`` says per output what runs where.

Options (``GemminiBackend.with_options``; CLI ``--gemmini-config``, ``--gemmini-dim``): the
datatype configuration (``"int8"``: int8 scratchpad, int32 accumulator; ``"fp32"``) and the
array size DIM (default 16); ``search_candidates`` (``--gemmini-search-candidates``): the work
budget of the schedule search of a product with known sizes, candidates modelled (default
:data:`~tenspiler.act.gemm_search.MAX_CANDIDATES`: the same winner, so the same C, on any
machine); ``search_s`` (``--gemmini-search-s``): its wall-clock safety net in seconds (default
:data:`SEARCH_SAFETY_NET_S`; 0: no search; a search the net stops is not used — the C then
chooses among its run-time variants, as without a search). With a configuration chosen, a kernel whose device values it
cannot hold is refused with the reason (:class:`~tenspiler.errors.CodegenError`; exit 1).
Without one, the backend uses the configuration that puts more of the kernel on Gemmini
(``int8`` on a tie: the default Gemmini), keeps the terms it cannot hold on the host, and says
so in the placement — so ``--to all`` never fails on Gemmini's account.

``--check`` runs the C file compiled against the recording header with the instructions
executed by the oracle generated from the ISA description (:mod:`.harness`): once through the
generic differential check against the original program, and once more in
:meth:`GemminiBackend.device_check` on inputs at the int8 extremes and with long reductions,
compared with the TensIR reference interpreter (integers bit-exactly), with every call's
instructions required to equal the Gemmini assembly its procedure predicts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tenspiler.act.gemm_search import SEARCH_SAFETY_NET_S
from tenspiler.act.isa.gemmini import CONFIGS, gemmini_isa
from tenspiler.act.schedule import Proc
from tenspiler.codegen.base import GeneratedCode, Runner, decline_strided_outputs, returned_outputs
from tenspiler.codegen.c_host import CHostError
from tenspiler.codegen.gemmini.cfile import c_file, param_c_type, return_c_type
from tenspiler.codegen.gemmini.lower import Plan, plan_summary
from tenspiler.codegen.gemmini.procs import affine_proc
from tenspiler.codegen.preconditions import proof_preconditions
from tenspiler.codegen.ranges import param_ranges
from tenspiler.codegen.registry import register_backend
from tenspiler.errors import CodegenError
from tenspiler.ir.printer import show_summary
from tenspiler.ir.terms import ArrayOutput, ProgramSummary, Term
from tenspiler.loops.ir import DType, Function, PointerType

__all__ = ["GEMMINI", "GemminiBackend", "procs_by_name"]


def procs_by_name(dim: int, config: str, names: list[str]) -> dict[str, Proc]:
    """The device procedures called ``names`` (as :mod:`.cfile` names them)."""
    from tenspiler.act.gemm_search import gemm_schedule_proc, parse_schedule_name

    isa = gemmini_isa(dim, config)
    out: dict[str, Proc] = {}
    for n in names:
        parsed = parse_schedule_name(n)
        if parsed is not None:
            out[n] = gemm_schedule_proc(parsed[0], dim, name=n, config=config, bias=parsed[1])
        elif n.startswith("act_affine_"):
            # the ACT backend (egglog, OR-tools: ~0.5 s to import) only for the procedures it compiles
            from tenspiler.act.tiling import act_affine_proc, parse_affine_proc_name

            affine = parse_affine_proc_name(n)
            assert affine is not None
            out[n] = act_affine_proc(dim, affine[0], affine[1], n, config)
        else:
            rest = n.removeprefix("gemmini_affine")
            relu = rest.endswith("r")
            rest = rest.removesuffix("r")
            out[n] = affine_proc(isa, int(rest.rstrip("c")), rest.endswith("c"), n, relu)
    return out


class GemminiBackend:
    """Gemmini C with host fallback. Registered as ``"gemmini"`` (configuration chosen per
    kernel, DIM 16)."""

    name = "gemmini"

    def __init__(self, dim: int = 16, config: str | None = None, search_s: float = SEARCH_SAFETY_NET_S,
                 sizes: Mapping[str, int] | None = None, search_candidates: int | None = None) -> None:
        if config is not None and config not in CONFIGS:
            raise CodegenError(f"unknown Gemmini configuration {config!r}; known: {', '.join(CONFIGS)}")
        if not 1 <= dim <= 256:
            raise CodegenError(f"Gemmini DIM must be in 1..256, got {dim}")
        if not search_s >= 0:
            raise CodegenError(f"the Gemmini schedule search's time limit (its safety net) must be ≥ 0 seconds, got {search_s}")
        if search_candidates is not None and search_candidates < 1:
            raise CodegenError(f"the Gemmini schedule search's budget must be ≥ 1 candidate, got {search_candidates}")
        self.dim, self.config, self.search_s = dim, config, search_s
        self.search_candidates = search_candidates
        self.sizes = dict(sizes or {})

    def with_options(self, **opts: Any) -> GemminiBackend:
        """A backend with ``config`` / ``dim`` / ``search_s`` (the search's wall-clock safety net,
        seconds; 0: no search) / ``search_candidates`` (its work budget) /
        ``sizes`` (size parameter → expected value: matrix products are specialised for it)
        replaced.

        Raises:
            CodegenError: an unknown option or value.
        """
        unknown = set(opts) - {"config", "dim", "search_s", "search_candidates", "sizes"}
        if unknown:
            raise CodegenError(f"gemmini: unknown option(s) {', '.join(sorted(unknown))}")
        config = opts.get("config", self.config)
        return GemminiBackend(int(opts.get("dim", self.dim)), None if config is None else str(config),
                              float(opts.get("search_s", self.search_s)), opts.get("sizes", self.sizes),
                              opts.get("search_candidates", self.search_candidates))

    def supports(self, term: Term) -> bool:
        """Whether :mod:`.lower` would put any of ``term`` on Gemmini."""
        from tenspiler.ir.terms import ScalarOutput, free_vars

        ps = ProgramSummary("term", (ScalarOutput("return", term),))  # type: ignore[arg-type]
        for config in [self.config] if self.config else list(CONFIGS):
            try:
                if plan_summary(ps, set(free_vars(term)), config, strict=self.config is not None).calls:
                    return True
            except CodegenError:
                return False
        return False

    def plan(self, fn: Function, ps: ProgramSummary) -> tuple[str, Plan]:
        """The configuration used and the device/host split of ``ps`` (see the class docstring).

        Raises:
            CodegenError: with a chosen configuration, a device value it cannot hold; a
                strided output (no rule).
        """
        decline_strided_outputs(ps, "Gemmini")

        def one(config: str) -> Plan:
            device_type = "int" if config == "int8" else "float"
            in_place = {p.name for p in fn.params if isinstance(p.type, PointerType) and param_c_type(fn, p.name) == device_type}
            ints = {p.name for p in fn.params if isinstance(p.type, PointerType) and p.type.elem == DType.INT}
            return plan_summary(ps, in_place, config, strict=self.config is not None, ranges=param_ranges(fn), int_arrays=ints)

        if self.config is not None:
            return self.config, one(self.config)
        plans = {c: one(c) for c in CONFIGS}
        best = max(CONFIGS, key=lambda c: (len(plans[c].calls), c == "int8"))
        return best, plans[best]

    def generate(self, fn: Function, ps: ProgramSummary) -> GeneratedCode:
        config, plan = self.plan(fn, ps)
        isa = gemmini_isa(self.dim, config)
        placement = plan.to_json()
        header = _header(fn, ps, plan.to_json(), self.dim, config, chosen=self.config is not None)
        try:
            cf = c_file(fn, plan, isa, header, preconditions=proof_preconditions(fn, ps), search_s=self.search_s,
                        sizes=self.sizes, search_candidates=self.search_candidates)
        except CHostError as e:
            raise CodegenError(f"gemmini: the host part needs an op the C emitter lacks: {e}") from None
        runner = _runner_text(fn, ps, cf.text, sorted(cf.procs), self.dim, config)
        placement["config"] = {"dim": self.dim, "config": config, "chosen_by": "user" if self.config else "tenspiler", **CONFIGS[config],
                               "products": "verified schedules (tenspiler.act.gemm_search; calibrated cost model)",
                               "schedules": cf.notes,
                               "elementwise": ("ACT backend (scaled terms as products with s·I)" if config == "int8" else
                                               "ACT backend for sums of unit terms, else the hand-written accumulator "
                                               "procedure")}
        return GeneratedCode(
            backend=self.name, language="c", filename_suffix=".gemmini.c", text=cf.text, entry=fn.name,
            params=_entry_params(fn),
            runner=Runner(runner, f"the Gemmini C file compiled against the recording header, its instructions run by the oracle "
                                  f"generated from the Gemmini ISA description (DIM={self.dim}, {config})"),
            placement=placement,
        )

    def device_check(self, fn: Function, ps: ProgramSummary, code: GeneratedCode, kernel: Any, seed: int) -> dict[str, Any]:
        """``--check``'s Gemmini part: the C file on inputs at the int8 extremes and with long
        reductions (:func:`.check.device_inputs` of the analysed ``kernel``) against the TensIR
        interpreter — integers exactly, reals with the float tolerance — with every call's
        instructions equal to its procedure's assembly (:mod:`.check`)."""
        from tenspiler.codegen.gemmini.check import device_check, device_inputs

        return device_check(self, fn, ps, code, device_inputs(kernel, seed))


def _entry_params(fn: Function) -> tuple[str, ...]:
    if fn.cxx is not None:
        return tuple(v if isinstance(v, str) else v.name for v in fn.cxx.signature)
    return tuple(p.name for p in fn.params)


def _header(fn: Function, ps: ProgramSummary, placement: Mapping[str, Any], dim: int, config: str, chosen: bool) -> str:
    types = CONFIGS[config]
    lines = [
        f"{fn.name}.gemmini.c -- generated by tenspiler from the verified program summary:",
        *("  " + line for line in show_summary(ps).splitlines()),
        "",
        f"Gemmini: DIM={dim}, {config} configuration (scratchpad {types['input']}, accumulator {types['acc']})"
        + ("." if chosen else "; chosen by tenspiler (it puts the most on Gemmini; --gemmini-config to choose)."),
        "Where each output is computed:",
    ]
    for o in placement["outputs"]:
        lines.append(f"  {o['output']}: {o['where']}")
        lines += [f"    - {n}" for n in o["notes"]]
    lines += [
        "",
        "Device calls check a run-time contract first (int8 operands in [-128, 127], no int32 wrap,",
        "exact float32 scale factors) and are computed by the host code when it fails",
        "(counted in tenspiler_gemmini_fallbacks).",
        "Build for Gemmini: compile with gemmini-rocc-tests' include/gemmini.h on the include path.",
        "Check: lift --to gemmini --check compiles this file with -DTENSPILER_RECORD against a header",
        "generated from tenspiler's Gemmini ISA description and runs each instruction on its oracle.",
        f"The entry takes the flat C parameters: {', '.join(p.name for p in fn.params)}.",
    ]
    return "\n".join(lines)


def _returns(outs: list[tuple[str, str]]) -> str:
    """The flat function's return statement (no builtins: the kernel may be called ``len``)."""
    values = [f"state[{name!r}]" if kind == "array" else "state['return']" for kind, name in outs]
    if not values:
        return "return None"
    return f"return {values[0]}" if len(values) == 1 else f"return ({', '.join(values)})"


def _indent_lines(block: str) -> str:
    return "\n".join(f"    {line}" for line in block.split("\n"))


def _runner_text(fn: Function, ps: ProgramSummary, c_text: str, procs: list[str], dim: int, config: str) -> str:
    """The runner: the arrays' ranges checked (a C pointer has no length: the caller's
    obligation, here the runner's), then the C file on the oracle."""
    from tenspiler.codegen.numpy_backend import cxx_adapter, runner_guards

    params = [(p.name, "ptr" if isinstance(p.type, PointerType) else "scalar", param_c_type(fn, p.name)) for p in fn.params]
    ret = return_c_type(fn)
    outs = [("array", o.array) if isinstance(o, ArrayOutput) else ("return", "") for o in returned_outputs(ps)]
    names = {p.name: f"p_{p.name}" for p in fn.params}
    flat = "_flat" if fn.cxx is not None else fn.name
    args = ", ".join(names[p.name] for p in fn.params)
    guards, helpers = runner_guards(fn, ps, names, c_entry=True)
    lines = [
        f'"""Runs {fn.name}.gemmini.c with its Gemmini instructions executed by tenspiler\'s oracle."""',
        "import numpy as np",
        "",
        "from tenspiler.codegen.gemmini.runtime import load",
        "",
        f"_C_FILE = {c_text!r}",
        f"_RUNNER = load(_C_FILE, {fn.name!r}, {json.dumps(params)}, {ret!r}, {procs!r}, {dim}, {config!r})",
        *(f"\n\n{h}" for h in helpers),
        "",
        "",
        f"def {flat}({args}):",
        *(_indent_lines(g) for g in guards),
        f"    state = _RUNNER.run({{{', '.join(f'{p.name!r}: {names[p.name]}' for p in fn.params)}}})",
        f"    {_returns(outs)}",
    ]
    text = "\n".join(lines) + "\n"
    if fn.cxx is not None:
        text += "\n\n" + cxx_adapter(fn, ps, flat, names) + "\n"
    return text


GEMMINI = GemminiBackend()
register_backend(GEMMINI)
