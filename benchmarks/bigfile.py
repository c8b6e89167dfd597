"""Lifting one small function out of a big C file (issue 33): ``lift big.c --function f --check``.

    python benchmarks/bigfile.py [--functions 500] [--runs 1] [--keep DIR]

Writes a C file of ``--functions`` functions (a few hundred to a thousand lines each of
arithmetic loops, ~4 KB per function: 500 functions are ~2 MB) whose last one, ``f``, is a
one-line loop (``out[i] = a[i] + b[i]``), into a temporary folder, and times the command
``python -m tenspiler big.c --function f --to numpy --check --json`` in a fresh process
(``TENSPILER_CACHE_DIR`` in the folder): the wall time and the per-phase timings the
``--json`` object reports (``parse``, ``synthesis``, ``check``, ...). ``--check`` compiles
only ``f`` and what it reaches (:mod:`tenspiler.frontend.c_needed`), not the 500 functions.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def filler(k: int) -> str:
    """An unrelated function of ~4 KB: loops with arithmetic the compiler optimises."""
    body = []
    for j in range(24):
        body.append(
            f"    for (int i{j} = 1; i{j} < n; i{j}++) {{\n"
            f"        acc += a[i{j}] * {j + 3} - a[i{j} - 1] / {j + 2};\n"
            f"        if (acc > {1000 + j}) acc = acc % {97 + j} + a[(i{j} * {k % 7 + 1}) % n];\n"
            f"        b[i{j}] = acc ^ (acc >> {j % 5 + 1});\n"
            f"    }}\n"
        )
    return f"int filler_{k}(int *a, int *b, int n) {{\n    int acc = {k};\n" + "".join(body) + "    return acc;\n}\n\n"


def big_file(functions: int) -> str:
    head = "#include <stdlib.h>\n#include <string.h>\n\n"
    kernel = "void f(float *out, float *a, float *b, int n) {\n    for (int i = 0; i < n; i++) out[i] = a[i] + b[i];\n}\n"
    return head + "".join(filler(k) for k in range(functions - 1)) + kernel


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--functions", type=int, default=500, help="functions in the file (default 500)")
    ap.add_argument("--runs", type=int, default=1, help="lifts to time (default 1; the median is printed)")
    ap.add_argument("--keep", type=Path, help="write the file here instead of a temporary folder")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tenspiler-bigfile-") as d:
        work = args.keep or Path(d)
        work.mkdir(parents=True, exist_ok=True)
        path = work / "big.c"
        path.write_text(big_file(args.functions))
        print(f"{path}: {args.functions} functions, {path.stat().st_size / 1e6:.2f} MB, "
              f"{path.read_text().count(chr(10))} lines")
        env = dict(os.environ, PYTHONPATH=str(ROOT), TENSPILER_CACHE_DIR=str(work / "cache"))
        walls, phases = [], []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            p = subprocess.run([sys.executable, "-m", "tenspiler", str(path), "--function", "f", "--to", "numpy",
                                "--check", "--json"], env=env, capture_output=True, text=True, check=False)
            walls.append(time.perf_counter() - t0)
            try:
                out = json.loads(p.stdout)
            except json.JSONDecodeError:
                print(f"lift failed ({p.returncode}):\n{p.stdout}{p.stderr}", file=sys.stderr)
                return 1
            if out.get("status") != "verified":
                print(f"not verified: {out.get('message')}", file=sys.stderr)
                return 1
            phases.append(out.get("timings", {}))
        print(f"lift big.c --function f --check: median wall {statistics.median(walls):.2f} s "
              f"(runs: {', '.join(f'{w:.2f}' for w in walls)})")
        for name in phases[0]:
            print(f"  {name:14} {statistics.median(t[name] for t in phases):8.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
