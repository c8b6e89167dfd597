"""Lift every C / C++ kernel under the given folders and print a table.

    python benchmarks/corpus.py [DIR|FILE ...] [--timeout S] [--no-check] [--json FILE]

Default folders (relative to the repository root): ``benchmarks/kernels`` (the project's
own versions of the 69 Tenspiler benchmarks, C and C++ ``std::vector`` subset) and the
C2TACO corpus, ``$TENSPILER_CORPORA/c2taco`` (:mod:`tenspiler.bench.corpora` says how to get
it; without it only the project's kernels are run). Every ``*.c``, ``*.cc`` and ``*.py`` file below a folder is a
kernel (``.cc``: the C++ ``std::vector`` subset; ``.py``: legacy Python, checked against the
original Python function). For each kernel: suite (``<root-name>/<suite>``, the root being the
folder given), kernel, status, TensIR summary (or the reason it was not lifted), lift
seconds (parse + analyze + synthesis + verification + codegen, wall clock), the
differential check against ``cc -O2`` and the certificate re-check by a fresh cvc5.
Exit code 0 always (it is a measurement, not a test); ``--strict`` exits 1 if any kernel
was not verified. ``--json`` rows carry the certificate's SHA-256, so two runs (an idle and
a loaded machine) can be compared for identical status, summary and certificate.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

from tenspiler.bench.corpora import HOW_TO_GET, corpus_dir
from tenspiler.pipeline import LiftResult, lift_file
from tenspiler.verify.certificate import is_valid, recheck

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "benchmarks" / "kernels"
C2TACO = corpus_dir("c2taco")
DEFAULT = [KERNELS, C2TACO]
SUFFIXES = (".c", ".cc", ".py")


def collect(dirs: list[Path]) -> list[tuple[str, Path]]:
    """``(suite, file)`` for every kernel: files below each folder (sorted), or the file
    itself. The suite is ``<root-name>/<sub/folders>`` for a folder argument and
    ``<grandparent>/<parent>`` for a file argument."""
    found: list[tuple[str, Path]] = []
    for d in dirs:
        if d.is_dir():
            for f in sorted(x for x in d.rglob("*") if x.is_file() and x.suffix in SUFFIXES):
                sub = f.relative_to(d).parent.as_posix()
                found.append((d.resolve().name if sub == "." else f"{d.resolve().name}/{sub}", f))
        elif d.is_file():
            f = d.resolve()
            found.append((f"{f.parent.parent.name}/{f.parent.name}", d))
        else:
            hint = f" ({HOW_TO_GET})" if d == C2TACO else ""
            print(f"warning: {d} does not exist; skipped{hint}", file=sys.stderr)
    return found


def one_line(text: str | None) -> str:
    return (text or "").replace("\n", " ; ")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="*", type=Path, default=DEFAULT,
                    help="folders (every *.c / *.cc / *.py below them) or files; default: "
                         "benchmarks/kernels and $TENSPILER_CORPORA/c2taco")
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="wall-clock safety net per kernel (s); the verdict's budget is counted in work")
    ap.add_argument("--no-check", action="store_true", help="skip the differential check vs cc -O2")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON")
    ap.add_argument("--strict", action="store_true", help="exit 1 unless every kernel verified")
    args = ap.parse_args()

    files = collect(args.dirs)
    rows = []
    with tempfile.TemporaryDirectory(prefix="tenspiler-corpus-") as tmp:
        for suite, f in files:
            t0 = time.perf_counter()
            try:
                res = lift_file(f, ["numpy"], out_dir=Path(tmp) / suite / f.stem, timeout=args.timeout,
                                check=not args.no_check, force=True)
            except Exception as err:  # lift_file promises not to raise; keep the run going if it does
                res = LiftResult(status="error", message=f"internal error: {type(err).__name__}: {err}")
            wall = time.perf_counter() - t0
            recheck_ok = None
            digest = None
            if res.certificate:
                recheck_ok = is_valid(recheck(res.certificate))
                digest = hashlib.sha256(Path(res.certificate).read_bytes()).hexdigest()
            check = res.check["numpy"] if res.check else None
            rows.append({
                "suite": suite,
                "kernel": f.stem,
                "file": str(f),
                "status": res.status,
                "summary": res.summary if res.status == "verified" else res.message,
                "lift_seconds": round(sum(v for k, v in res.timings.items() if k not in ("check", "verification")), 3),
                "wall_seconds": round(wall, 3),
                "check": None if check is None else f"{check['passed']}/{check['inputs']}",
                "certificate_recheck": recheck_ok,
                "certificate_sha256": digest,
            })
            r = rows[-1]
            print(f"{r['suite']:22} {r['kernel']:20} {r['status']:10} {r['lift_seconds']:7.3f}s "
                  f"check={r['check'] or '-':7} recheck={'-' if recheck_ok is None else ('unsat' if recheck_ok else 'FAIL'):5} "
                  f"{one_line(r['summary'])}", flush=True)
    n_ok = sum(r["status"] == "verified" for r in rows)
    roots: dict[str, list[dict]] = {}
    for r in rows:
        roots.setdefault(r["suite"].split("/")[0], []).append(r)
    per_root = ", ".join(
        f"{name}: {sum(r['status'] == 'verified' for r in rs)}/{len(rs)}"
        + (f" ({sum(r['file'].endswith('.cc') for r in rs)} .cc)" if any(r["file"].endswith(".cc") for r in rs) else "")
        for name, rs in roots.items()
    )
    print(f"\n{n_ok}/{len(rows)} verified ({per_root}); max lift time among verified: "
          f"{max((r['lift_seconds'] for r in rows if r['status'] == 'verified'), default=0):.3f} s")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 1 if args.strict and n_ok != len(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
