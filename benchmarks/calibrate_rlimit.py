"""Calibrate the proof budget (:data:`tenspiler.budget.PROOF_RLIMIT`) in cvc5 resource units.

    python benchmarks/calibrate_rlimit.py [DIR|FILE ...] [--rlimit UNITS] [--markdown FILE]

Lifts every kernel below the folders (default: ``tests/kernels``, ``benchmarks/kernels``,
``examples`` and the C2TACO corpus of ``$TENSPILER_CORPORA``) with ``--no-check`` and the
given resource limit per VC clause (default: the default limit), records every cvc5 query the
lift makes (its answer, resource units and seconds), and prints: how many kernels verified,
the largest number of units any clause of a verified kernel's proof used, the units per
second, and the kernels whose proofs came closest to the default limit. A default limit
well above the largest proof keeps every kernel that verifies verifying; the limit is the
budget that decides the verdict, in work, so the verdict does not depend on the load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from tenspiler.budget import PROOF_RLIMIT
from tenspiler.pipeline import lift_file
from tenspiler.verify import verifier

ROOT = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("TENSPILER_CORPORA", Path.home() / ".cache" / "tenspiler-corpora"))
DEFAULT = [ROOT / "tests" / "kernels", ROOT / "benchmarks" / "kernels", ROOT / "examples", CORPORA / "c2taco"]
SUFFIXES = (".c", ".cc", ".py")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="*", type=Path, default=DEFAULT)
    ap.add_argument("--rlimit", type=int, default=PROOF_RLIMIT, help="resource units per clause during calibration")
    ap.add_argument("--markdown", type=Path, help="also write the summary as Markdown")
    args = ap.parse_args()
    files = [f for d in args.dirs for f in (sorted(d.rglob("*")) if d.is_dir() else [d])
             if f.is_file() and f.suffix in SUFFIXES]
    queries: list[tuple[str, int, float]] = []
    original = verifier.check_scripts

    def recording(*a: object, **k: object):  # type: ignore[no-untyped-def]
        results = original(*a, **k)  # type: ignore[arg-type]
        queries.extend((r.answer, r.resources, r.seconds) for r in results)
        return results

    verifier.check_scripts = recording  # type: ignore[assignment]
    verified: list[tuple[int, str]] = []
    statuses: dict[str, int] = {}
    t0 = time.perf_counter()
    for n, f in enumerate(files, 1):
        before = len(queries)
        res = lift_file(f, ["numpy"], check=False, proof_rlimit=args.rlimit)
        mine = queries[before:]
        out = sum(a == "unknown" for a, _, _ in mine)
        most = max((u for _, u, _ in mine), default=0)
        statuses[res.status] = statuses.get(res.status, 0) + 1
        if res.status == "verified":
            verified.append((max((c.get("resources", 0) for c in res.solver), default=0), str(f.relative_to(f.anchor))))
        print(f"[{n}/{len(files)}] {res.status:12} {len(mine):4} queries, largest {most:>13,} units, "
              f"{out} unknown  {f}", file=sys.stderr, flush=True)
    wall = time.perf_counter() - t0
    unsat = [(u, s) for a, u, s in queries if a == "unsat" and s > 0.05]
    rate = statistics.median(u / s for u, s in unsat) if unsat else 0.0
    verified.sort(reverse=True)
    largest = verified[0][0] if verified else 0
    lines = [
        f"{len(files)} kernels in {wall:.0f} s: " + ", ".join(f"{v} {k}" for k, v in sorted(statuses.items())),
        f"{len(queries)} cvc5 queries; largest clause of a verified proof: {largest:,} units "
        f"(default limit {PROOF_RLIMIT:,}: {PROOF_RLIMIT / max(largest, 1):.1f}x); median {rate:,.0f} units/s "
        f"over the {len(unsat)} unsat queries longer than 0.05 s",
        "kernels closest to the limit (largest clause, units):",
        *[f"  {u:>14,}  {name}" for u, name in verified[:10]],
    ]
    print("\n".join(lines))
    if args.markdown:
        args.markdown.write_text("# Proof budget calibration\n\n```\n" + "\n".join(lines) + "\n```\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
