"""The nightly kernel-fuzzing campaign (a red team for "verified => correct").

    python benchmarks/fuzz.py --budget 5000 --seed S

generates ``--budget`` kernels (C, and ``--python-share`` percent legacy Python) with
:mod:`tenspiler.fuzz.generate`, lifts each in a worker process (``--timeout`` seconds of
synthesis, killed at a hard wall limit), runs every verified one against gcc (``-O0
-fwrapv``, ``-O2``, a sanitizer build to discard inputs with undefined behaviour) or the
original Python function on adversarial inputs, and classifies it: agrees,
VERIFIED-BUT-WRONG, VERIFIED-INVALID-C, refused (by reason), CRASH, timeout.

Writes ``--out`` (default ``benchmarks/results/fuzz.md``) and the same data as JSON next to
it (``fuzz.json``); every bug's kernel and counterexample goes to ``--failures`` (default
``benchmarks/results/fuzz_failures/``). ``--snapshot`` runs the tool as committed at HEAD
(``git archive HEAD``, in a temporary folder; the fuzzer itself from the working tree)
instead of the working tree, so a campaign is not disturbed by edits in progress.
``--shapes product,argmax`` draws only running products and indices of extrema (C and
Python); ``--shapes tensor3`` only 3-D kernels (C++ ``vector<vector<vector<T>>>`` and Python
``list[list[list[T]]]``: element-wise maps, one row per plane, per-plane sums),
``poststore`` only C reductions stored after a loop or a two-deep nest (``*out = s;``,
``out[k] = best;``), ``guardedprod`` only guarded running products (``if (c) p *= F;``, C and
Python), ``window`` only 2-D window kernels (convolutions, boxes, with near-misses, C);
``--focus conversion,cxxsize,pyraise`` (``--focus`` is ``--shapes``) the red team's classes:
integer <-> float conversions (C, compared bit for bit, inputs at float rounding boundaries),
C++ ``v.size()`` arithmetic in ``size_t``, and Python kernels that raise (the generated code
must raise the same exception class) or divide ints beyond 2**53;
``--focus unsigned,narrow,bitwise,whileloop,guard,stride,reading,control`` the idioms of shipped C code
(:mod:`tenspiler.fuzz.idioms`: unsigned arithmetic modulo 2**n and mixed signed/unsigned
comparisons, narrow types with promotion and wrapping stores, bitwise operations, Q15
products and written-out saturation, ``while`` loops with pointer bumps and CMSIS's
LOOPUNROLL, early-return guards in C and Python, runtime strides and ``a_ptr += lda``, what
a real file wraps a kernel in, ``switch``, an ``if`` around loops, shifts by a run-time count,
nests accumulating into an output element; 2 percent each of the default mix);
``--shapes new`` / ``deep`` bias the mix. Progress goes to stderr, one line per kernel. Exit code:
0 when no bug was found, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _snapshot_and_reexec(argv: list[str]) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="tenspiler_head_"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "HEAD", "tenspiler"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive.stdout, check=True)
    fuzz = tmp / "tenspiler" / "fuzz"
    if fuzz.exists():  # the fuzzer is the measuring instrument: always the working copy
        shutil.rmtree(fuzz)
    fuzz.symlink_to(ROOT / "tenspiler" / "fuzz")
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    env = dict(os.environ, PYTHONPATH=str(tmp), TENSPILER_FUZZ_SNAPSHOT=head)
    args = [a for a in argv if a != "--snapshot"]
    return subprocess.call([sys.executable, str(Path(__file__).resolve()), *args], env=env)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=int, default=500, help="number of generated kernels")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=20.0, help="synthesis seconds per kernel")
    ap.add_argument("--python-share", type=int, default=25, help="percent of Python kernels")
    ap.add_argument("--cases", type=int, default=48, help="inputs per verified kernel")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "fuzz.md")
    ap.add_argument("--failures", type=Path, default=ROOT / "benchmarks" / "results" / "fuzz_failures")
    ap.add_argument("--snapshot", action="store_true", help="run the tool as committed at HEAD")
    ap.add_argument("--tool-check", action="store_true",
                    help="lift with the tool's own differential check on (lift --check); default: the API default, off")
    ap.add_argument("--shapes", "--focus", dest="shapes", default="",
                    help="comma-separated: 'product', 'argmax', 'tensor3', 'poststore', 'guardedprod', 'window', "
                         "'conversion', 'cxxsize', 'pyraise', 'unsigned', 'narrow', 'bitwise', 'whileloop', 'guard', "
                         "'stride', 'reading', 'control' draw only kernels of those shapes (each equally often); "
                         "'new' / 'deep' bias the mix (sets TENSPILER_FUZZ_SHAPES); default: the usual mix")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    if args.shapes:
        from tenspiler.fuzz.generate import FOCUS_SHAPES

        known = {*FOCUS_SHAPES, "new", "deep"}
        bad = [x for x in args.shapes.split(",") if x.strip() not in known]
        if bad:
            ap.error(f"unknown shape(s) {', '.join(bad)}; known: {', '.join(sorted(known))}")
        os.environ["TENSPILER_FUZZ_SHAPES"] = args.shapes
    if args.snapshot and not os.environ.get("TENSPILER_FUZZ_SNAPSHOT"):
        return _snapshot_and_reexec(argv)

    import tenspiler
    from tenspiler.fuzz.campaign import BUGS, run_campaign

    t0 = time.time()

    def progress(i: int, rec: dict, summary) -> None:  # type: ignore[no-untyped-def,unused-ignore]
        if args.quiet:
            return
        c = summary.counts
        what = rec.get("category") or rec.get("detail") or rec.get("message", "")
        mark = " <== BUG" if rec["cls"] in BUGS else ""
        print(f"[{i + 1}/{args.budget} {time.time() - t0:6.0f}s] {rec['language']:6} {rec['cls']:18} "
              f"{str(what)[:70]}{mark}   (ok {c['agrees']}, wrong {c['VERIFIED-BUT-WRONG'] + c['PRECONDITION-NOT-CHECKED']}, "
              f"crash {c['CRASH']}, refused {c['refused']})", file=sys.stderr, flush=True)

    summary = run_campaign(args.budget, seed=args.seed, timeout=args.timeout, python_share=args.python_share,
                           failures=args.failures, cases=args.cases, progress=progress, check=args.tool_check)
    snap = os.environ.get("TENSPILER_FUZZ_SNAPSHOT")
    command = "python benchmarks/fuzz.py " + " ".join(shlex.quote(a) for a in argv)
    md = summary.markdown(command)
    where = f"tool: {'HEAD ' + snap + ' (snapshot)' if snap else 'working tree'} at {tenspiler.__file__}"
    md = md.replace("\n\n", f"\n\n{where}.\n\n", 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(md, encoding="utf-8")
    data = summary.to_json()
    data["command"], data["tool"] = command, where
    args.out.with_suffix(".json").write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
    c = summary.counts
    order = ["agrees", "VERIFIED-BUT-WRONG", "PRECONDITION-NOT-CHECKED", "VERIFIED-INVALID-C", "CRASH",
             "caught-by-check", "refused", "timeout", "no-valid-input", "oracle-error"]
    parts = ", ".join(f"{c[k]} {k}" for k in order if c[k] or k in ("agrees", "VERIFIED-BUT-WRONG", "CRASH", "refused"))
    print(f"{len(summary.records)} kernels: {parts} in {summary.seconds:.0f} s; summary in {args.out}")
    return 1 if summary.bugs() else 0


if __name__ == "__main__":
    sys.exit(main())
