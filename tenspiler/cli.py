"""Command line: ``lift FILE --to BACKEND[,BACKEND...]`` and two subcommands, ``lift
recheck CERT`` and ``lift bench CORPUS...`` (verification runs over whole corpora:
``tenspiler/bench/``). ``python -m tenspiler`` is the same command.

Exit codes (DESIGN.md, "The user-facing contract"): 0 verified and emitted; 1 not lifted
(no verified summary within the budget, or an op outside TensIR, or no backend asked for can
emit the summary: a backend that cannot while others can is named in a warning
``FILE: warning: BACKEND: no rule for OP (not emitted)`` and the others are emitted); 2 bad input
(``file:line:col: message`` on stderr; also a backend whose extra is not installed); 3 an
internal error (a bug of tenspiler's: please report it).

Messages go through :mod:`logging` (logger ``tenspiler``) on stderr: warnings by default,
each phase's progress with ``-v``, debugging detail with ``-vv``, errors only with ``-q``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenspiler.budget import PROOF_RLIMIT
from tenspiler.codegen.registry import backend_names
from tenspiler.version import __version__

if TYPE_CHECKING:
    from tenspiler.frontend.flags import CompileFlags
    from tenspiler.pipeline import LiftResult

log = logging.getLogger("tenspiler")

#: The subcommands (``lift COMMAND --help`` gives each one's options).
COMMANDS = {
    "recheck": "re-check SMT-LIB certificates with a fresh cvc5 (lift recheck CERT.smt2...)",
    "bench": "lift, verify, check and re-check whole corpora in parallel (lift bench CORPUS...)",
}


class _Flag(argparse.Action):
    """Collects the compile flags in command-line order, as the compiler would read them."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        got = list(getattr(namespace, self.dest, None) or [])
        opt = option_string or ""
        got.append(f"{opt}={values}" if opt == "-std" else f"{opt}{values}")
        setattr(namespace, self.dest, got)


def _compile_flags(args: argparse.Namespace) -> CompileFlags | None:
    """The compile flags of the command line, after those of ``--compile-commands``."""
    from tenspiler.frontend.flags import CompileFlags, from_compile_commands

    base = from_compile_commands(args.compile_commands, args.file) if args.compile_commands else CompileFlags()
    given = CompileFlags.parse(args.cflags or [], Path.cwd())
    both = CompileFlags(base.args + given.args)
    return both if both else None


def _lift_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="lift",
        usage="lift FILE [options]\n       lift {recheck,bench} ... (lift COMMAND --help)",
        description="Lift a legacy C, C++ or Python kernel to verified tensor code (TensIR, proved with cvc5).",
        epilog="Exit codes: 0 verified; 1 not lifted; 2 bad input; 3 internal error. With several "
               "backends, one that cannot emit the summary (no rule for one of its ops) is not emitted "
               "and named in a warning ('FILE: warning: BACKEND: no rule for OP (not emitted)'); the "
               "others are emitted and the exit code is 0; it is 1 only when no backend can emit it.",
    )
    commands = p.add_argument_group("commands", "instead of FILE, as the first argument")
    for name, text in COMMANDS.items():
        commands.add_argument(name, nargs="?", help=text, default=argparse.SUPPRESS)
    p.add_argument("file", help="C (.c), C++ (.cc, .cpp) or Python (.py) source file")
    p.add_argument("--function", metavar="NAME", help="function to lift (default: the last non-static one)")
    p.add_argument(
        "--to", default="numpy", metavar="BACKEND[,BACKEND...]",
        help=f"target(s), comma-separated, or 'all'; known: {', '.join(backend_names())} (default: numpy)",
    )
    c = p.add_argument_group("compile flags (C / C++: the file is read and --check compiles it with them)")
    c.add_argument("-I", dest="cflags", action=_Flag, metavar="DIR", help="add DIR to the include search path")
    c.add_argument("-D", dest="cflags", action=_Flag, metavar="NAME[=VALUE]", help="define a macro")
    c.add_argument("-U", dest="cflags", action=_Flag, metavar="NAME", help="undefine a macro")
    c.add_argument("-std", dest="cflags", action=_Flag, metavar="STD", help="language standard (default gnu17; c++17 for C++)")
    c.add_argument("-include", dest="cflags", action=_Flag, metavar="FILE", help="include FILE before the source")
    c.add_argument("-isystem", dest="cflags", action=_Flag, metavar="DIR", help="add DIR to the system include path")
    c.add_argument("-iquote", dest="cflags", action=_Flag, metavar="DIR", help="add DIR to the quoted-include path")
    c.add_argument("--compile-commands", metavar="FILE",
                   help="take the flags from FILE's entry for the source (compile_commands.json, as clangd does)")
    p.add_argument("-o", "--output", metavar="DIR", help="write generated code and the certificate into DIR")
    p.add_argument("--force", action="store_true", help="overwrite existing files in DIR")
    p.add_argument("--proof-rlimit", type=int, default=None, metavar="UNITS",
                   help="cvc5 resource units per VC clause: the proof budget, counted in work so that the verdict "
                        f"does not depend on the machine's load (default {PROOF_RLIMIT:_})")
    p.add_argument("--timeout", type=float, default=600.0, metavar="S",
                   help="wall-clock safety net of synthesis and proofs in seconds; when it fires the status is "
                        "'timeout', never 'not lifted' (default 600)")
    p.add_argument("--proof-timeout", type=float, default=300.0, metavar="S",
                   help="wall-clock safety net of one VC clause in seconds (default 300)")
    p.add_argument(
        "--check", action=argparse.BooleanOptionalAction, default=None,
        help="translation validation (default: on when a C/C++ compiler is found, always for Python): "
        "compare the loop IR and the generated code with the original (C/C++ compiled with cc/c++ -O2 "
        "and UBSan, or the Python function) on random and adversarial inputs; a disagreement means "
        "'not lifted'. --no-check skips it",
    )
    p.add_argument("--gemmini-config", choices=["int8", "fp32"], default=None,
                   help="Gemmini datatype configuration: int8 scratchpad / int32 accumulator, or fp32; a kernel whose Gemmini values it cannot hold is refused (default: the one that puts more of the kernel on Gemmini, int8 on a tie)")
    p.add_argument("--gemmini-dim", type=int, default=None, metavar="N", help="Gemmini systolic array size DIM (default 16)")
    p.add_argument("--gemmini-search-s", type=float, default=None, metavar="SECONDS",
                   help="wall-clock safety net of the verified schedule search for a matrix product whose sizes are "
                        "all static: the search's budget is work (--gemmini-search-candidates), so its winner is the "
                        "same on any machine; a search this net stops is not used (default 600; 0: no search, the "
                        "run-time schedule variants)")
    p.add_argument("--gemmini-search-candidates", type=int, default=None, metavar="N",
                   help="work budget of that search: schedules modelled on the cost model at most (default 1000)")
    p.add_argument("--gemmini-sizes", type=_hlo_sizes, default=None, metavar="NAME=N[,NAME=N...]",
                   help="expected values of the kernel's size parameters: each matrix product also gets the schedule "
                        "search's winner for them, used when the run-time sizes match")
    p.add_argument("--hlo-sizes", type=_hlo_sizes, default=None, metavar="NAME=N[,NAME=N...]",
                   help="static values of the kernel's size parameters for --to hlo (HLO shapes are static; default: 64 each)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--seed", type=int, default=0, help="seed of the random program states (default 0)")
    add_verbosity(p)
    p.add_argument("--version", action="version", version=f"tenspiler {__version__}")
    return p


def add_verbosity(p: argparse.ArgumentParser) -> None:
    """``-v`` / ``-vv`` / ``-q``: the level of the ``tenspiler`` logger (:func:`configure_logging`)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("-v", "--verbose", action="count", default=0,
                   help="progress of each phase on stderr (-vv: debugging detail)")
    g.add_argument("-q", "--quiet", action="store_true", help="errors only on stderr")


def configure_logging(verbose: int = 0, quiet: bool = False) -> None:
    """Send the ``tenspiler`` logger to stderr at WARNING, INFO (``-v``), DEBUG (``-vv``) or
    ERROR (``-q``)."""
    level = logging.ERROR if quiet else {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
    log.setLevel(level)
    for h in [h for h in log.handlers if h.get_name() == "tenspiler.cli"]:
        log.removeHandler(h)  # an earlier call's, on an earlier sys.stderr (tests replace it)
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name("tenspiler.cli")
    handler.setFormatter(logging.Formatter("%(message)s"))
    log.addHandler(handler)
    log.propagate = False


def _hlo_sizes(text: str) -> dict[str, int]:
    from tenspiler.codegen.hlo_backend import parse_sizes

    try:
        return parse_sizes(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def can_check(path: str) -> bool:
    """Whether ``--check`` can run for the file ``path`` (:func:`tenspiler.check.can_check`)."""
    from tenspiler.frontend import CXX_SUFFIXES, PY_SUFFIXES
    from tenspiler.frontend.preprocess import can_check as can_check_language

    suffix = Path(path).suffix.lower()
    return can_check_language(
        "python" if suffix in PY_SUFFIXES else "cxx" if suffix in CXX_SUFFIXES else "c"
    )


def _recheck_main(argv: Sequence[str]) -> int:
    from tenspiler.errors import BadInput
    from tenspiler.verify.certificate import is_valid, recheck

    p = argparse.ArgumentParser(prog="lift recheck", description="Re-check SMT-LIB certificates with a fresh cvc5.",
                                epilog="Exit codes: 0 every certificate valid; 1 one is not; 2 one cannot be read.")
    p.add_argument("certificates", nargs="+", metavar="CERT")
    add_verbosity(p)
    args = p.parse_args(argv)
    configure_logging(args.verbose, args.quiet)
    status = 0
    for c in args.certificates:
        try:
            answers = recheck(c)
        except BadInput as err:  # unreadable, not UTF-8: located by read_utf8
            print(err, file=sys.stderr)
            status = 2
            continue
        except ValueError as err:  # not SMT-LIB
            print(f"{c}: error: {err}", file=sys.stderr)
            status = 2
            continue
        ok = is_valid(answers)
        print(f"{c}: {' '.join(answers)} -> {'valid' if ok else 'NOT VALID'}")
        if not ok:
            status = max(status, 1)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """The ``lift`` command; returns the exit code (an unexpected exception is exit code 3)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    reference = sys.modules.get("tenspiler.reference")
    if reference is not None and reference.in_reference_run():
        # a module run as the reference of a differential check must not lift itself again
        raise reference.ReferenceRunStop("the lift command inside a reference run")
    try:
        if argv and argv[0] == "recheck":
            return _recheck_main(argv[1:])
        if argv and argv[0] == "bench":
            from tenspiler.bench.cli import bench_main

            return bench_main(argv[1:])
        return _lift_main(argv)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # a bug of ours
        log.debug("internal error", exc_info=True)
        print(f"lift: internal error ({type(err).__name__}: {err}); please report it with the input file",
              file=sys.stderr)
        return 3


def _lift_main(argv: Sequence[str]) -> int:
    args = _lift_parser().parse_args(argv)
    configure_logging(args.verbose, args.quiet)
    from tenspiler.errors import BadInput
    from tenspiler.pipeline import lift_file

    backends = [b.strip() for b in args.to.split(",") if b.strip()]
    say = log.info
    gemmini = {k: v for k, v in (("config", args.gemmini_config), ("dim", args.gemmini_dim),
                                 ("search_s", args.gemmini_search_s),
                                 ("search_candidates", args.gemmini_search_candidates), ("sizes", args.gemmini_sizes))
               if v is not None}
    # the hlo backend exports the Gemmini plan's device calls: --gemmini-config applies to it too
    hlo = {k: v for k, v in (("sizes", args.hlo_sizes), ("config", args.gemmini_config)) if v is not None}
    options = {b: o for b, o in (("gemmini", gemmini), ("hlo", hlo)) if o}
    try:
        flags = _compile_flags(args)
    except BadInput as err:  # an unreadable compilation database, or no entry for the file
        print(err, file=sys.stderr)
        return 2
    check = args.check if args.check is not None else can_check(args.file)
    if not check and args.check is None:
        log.warning("# note: no compiler for %s found: translation validation skipped", args.file)
    res = lift_file(
        args.file, backends, function=args.function, out_dir=args.output,
        timeout=args.timeout, proof_timeout=args.proof_timeout, check=check,
        force=args.force, seed=args.seed, progress=say,
        backend_options=options or None,
        proof_rlimit=PROOF_RLIMIT if args.proof_rlimit is None else args.proof_rlimit,
        flags=flags,
    )
    if args.json:
        print(json.dumps(res.to_json(), indent=2))
    if res.status == "verified":  # the backends that declined, each alone (the others are emitted)
        for b, reason in res.declined.items():
            log.warning("%s: warning: %s: %s (not emitted)", args.file, b, reason)
    if res.status != "verified":
        print(_failure_line(res, args.file), file=sys.stderr)
        return res.exit_code
    if not args.json:
        _print_human(res)
    return 0


def _failure_line(res: LiftResult, file: str) -> str:
    """The one stderr line of a failed lift, as a compiler gives it: ``file:line:col:
    message`` (bad input), ``file:line:col: not lifted: reason`` or ``file: not lifted:
    reason`` when the reason has no location; ``file: timeout: …`` when a wall-clock safety
    net fired (no verdict)."""
    if res.status == "timeout":
        return f"{file}: timeout: {res.message}"
    if res.status != "not_lifted":
        return res.message  # located by the frontend, or the internal error's own line
    loc = res.location
    if loc is not None and res.message.startswith(f"{loc}: "):
        return f"{loc}: not lifted: {res.message.removeprefix(f'{loc}: ')}"
    return f"{file}: not lifted: {res.message}"


def _print_human(res: LiftResult) -> None:
    print(f"# {res.function}: verified (cvc5: unsat for every VC clause)")
    print("# program summary (TensIR):")
    for line in (res.summary or "").splitlines():
        print(f"#   {line}")
    print("# loop invariant:")
    for inv in res.invariants:
        print(f"#   {inv}")
    print("# assumptions:")
    for a in res.assumptions:
        print(f"#   - {a}")
    print("# timings: " + ", ".join(f"{k} {v:.3f} s" for k, v in res.timings.items()))
    print(f"# certificate: {res.certificate}   (re-check: lift recheck {res.certificate})")
    if res.check:
        for b, c in res.check.items():
            extra = ""
            if "adversarial" in c:
                extra = f" ({c['adversarial']} adversarial; {c['dropped_undefined']} on which the source has undefined behaviour dropped)"
            what = "the loop IR (the proof's model of the source)" if b == "loop-ir" else "the generated code"
            if c.get("skipped_subnormal"):
                extra += f"; {c['skipped_subnormal']} inputs with subnormal floats skipped (the library flushes them to zero)"
            if c.get("outside_model"):
                extra += f"; {c['outside_model']} inputs with a float division by zero skipped (no value in the real-number model)"
            if c.get("advisory") and c["passed"] != c["inputs"]:
                extra += f"; advisory only ({c['advisory']})"
            print(f"# check [{b}]: {what} {'passed' if c['ok'] else 'FAILED'} on {c['passed']}/{c['inputs']} inputs vs {c.get('reference', 'cc -O2')}{extra}")
            if "device" in c:
                d = c["device"]
                print(f"# check [{b}, device]: {'passed' if d['ok'] else 'FAILED'} on {d['passed']}/{d['inputs']} inputs vs {d['reference']};"
                      f" {d['instructions']} instructions on the oracle, C == assembly, {d['fallbacks']} host fallbacks")
                if d.get("modelled", {}).get("instructions"):
                    mo = d["modelled"]
                    print(f"# cost model [{b}]: largest check input: {mo['instructions']} instructions, {mo['cycles']} cycles,"
                          f" utilisation {mo['utilization']:.1%} (tenspiler/act/cost.py: an event model, not a simulator)")
    for b, placement in (getattr(res, "placement", None) or {}).items():
        print(f"# device/host split [{b}]:")
        for o in placement.get("outputs", []):
            kernels = f" (kernels {', '.join(o['device_kernels'])})" if o["device_kernels"] else ""
            print(f"#   {o['output']}: {o['where']}{kernels}")
            for note in o["notes"]:
                print(f"#     - {note}")
        cfg = placement.get("config", {})
        if "products" in cfg and any(o["device_kernels"] for o in placement.get("outputs", [])):
            print(f"#   device code: products: {cfg['products']}; elementwise: {cfg['elementwise']}")
    if res.outputs:
        for b, path in res.outputs.items():
            print(f"# {b}: written to {path}")
    else:
        for b, text in res.code.items():
            print(f"# ---- {b} ----")
            print(text, end="")


if __name__ == "__main__":
    sys.exit(main())
