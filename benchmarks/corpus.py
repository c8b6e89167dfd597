"""Lift every C kernel under the given folders and print a table.

    python benchmarks/corpus.py [DIR ...] [--timeout S] [--no-check] [--json FILE]

Default folder: ../shared/corpus/c2taco (relative to the repository root). For each
kernel: suite, kernel, status, TensIR summary (or the reason it was not lifted), lift
seconds (parse + analyze + synthesis + verification + codegen, wall clock), the
differential check against ``cc -O2`` and the certificate re-check by a fresh cvc5.
Exit code 0 always (it is a measurement, not a test); ``--strict`` exits 1 if any kernel
was not verified.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from tenspiler.pipeline import lift_file
from tenspiler.verify.certificate import is_valid, recheck

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "corpus" / "c2taco"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="*", type=Path, default=[DEFAULT])
    ap.add_argument("--timeout", type=float, default=60.0, help="synthesis budget per kernel (s)")
    ap.add_argument("--no-check", action="store_true", help="skip the differential check vs cc -O2")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON")
    ap.add_argument("--strict", action="store_true", help="exit 1 unless every kernel verified")
    args = ap.parse_args()

    files = sorted(f for d in args.dirs for f in (d.rglob("*.c") if d.is_dir() else [d]))
    rows = []
    with tempfile.TemporaryDirectory(prefix="tenspiler-corpus-") as tmp:
        for f in files:
            t0 = time.perf_counter()
            res = lift_file(f, ["numpy"], out_dir=Path(tmp) / f.stem, timeout=args.timeout,
                            check=not args.no_check, force=True)
            wall = time.perf_counter() - t0
            recheck_ok = None
            if res.certificate:
                recheck_ok = is_valid(recheck(res.certificate))
            check = res.check["numpy"] if res.check else None
            rows.append({
                "suite": f.parent.name,
                "kernel": f.stem,
                "status": res.status,
                "summary": res.summary if res.status == "verified" else res.message,
                "lift_seconds": round(sum(v for k, v in res.timings.items() if k not in ("check", "verification")), 3),
                "wall_seconds": round(wall, 3),
                "check": None if check is None else f"{check['passed']}/{check['inputs']}",
                "certificate_recheck": recheck_ok,
            })
            r = rows[-1]
            print(f"{r['suite']:12} {r['kernel']:20} {r['status']:10} {r['lift_seconds']:7.3f}s "
                  f"check={r['check'] or '-':7} recheck={'-' if recheck_ok is None else ('unsat' if recheck_ok else 'FAIL'):5} "
                  f"{(r['summary'] or '').replace(chr(10), ' ; ')}", flush=True)
    n_ok = sum(r["status"] == "verified" for r in rows)
    print(f"\n{n_ok}/{len(rows)} verified; max lift time among verified: "
          f"{max((r['lift_seconds'] for r in rows if r['status'] == 'verified'), default=0):.3f} s")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 1 if args.strict and n_ok != len(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
