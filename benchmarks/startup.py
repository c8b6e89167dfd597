"""Start-up time where a user waits (issue 33): the median wall time of fresh processes.

    python benchmarks/startup.py [--runs 7] [--python PYTHON]

Rows:

* ``import tenspiler``: ``python -c "import tenspiler"``;
* ``import + cached @lifted``: a module with one ``@tenspiler.lifted`` Python kernel,
  imported after a first run stored it in the result cache (a folder of this run's own,
  ``TENSPILER_CACHE_DIR``), and the lifted function called once;
* ``lift --help``, ``lift --version``, ``lift missing.c``: ``python -m tenspiler ...``;
* ``python -c pass``: the interpreter alone, for reference.

Each row runs ``--runs`` times, each in a new process (nothing warm but the OS file cache);
the table prints the median, the minimum and the maximum in seconds. Run it from the
checkout (``PYTHONPATH`` is set to it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

KERNEL = '''
import tenspiler


@tenspiler.lifted(to="numpy", check=False)
def vadd(a: list[float], b: list[float], n: int) -> list[float]:
    out = []
    for i in range(n):
        out.append(a[i] + b[i])
    return out


print(float(vadd([1.0, 2.0], [3.0, 4.0], 2)[1]))
'''


def _time(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    if p.returncode not in (0, 2):
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    return seconds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="processes per row (default 7)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter to time")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tenspiler-startup-") as d:
        work = Path(d)
        env = dict(os.environ, PYTHONPATH=str(ROOT), TENSPILER_CACHE_DIR=str(work / "cache"))
        (work / "kernel_mod.py").write_text(KERNEL)
        first = subprocess.run([args.python, "kernel_mod.py"], env=env, cwd=work, capture_output=True, text=True,
                               check=False)
        if first.returncode != 0 or first.stdout.strip() != "6.0" or "LiftWarning" in first.stderr:
            print(f"the kernel did not lift:\n{first.stdout}{first.stderr}", file=sys.stderr)
            return 1
        py = args.python
        rows = [
            ("python -c pass", [py, "-c", "pass"]),
            ("import tenspiler", [py, "-c", "import tenspiler"]),
            ("import + cached @lifted call", [py, "kernel_mod.py"]),
            ("lift --help", [py, "-m", "tenspiler", "--help"]),
            ("lift --version", [py, "-m", "tenspiler", "--version"]),
            ("lift missing.c", [py, "-m", "tenspiler", "missing.c"]),
        ]
        print(f"{'what':32} {'median s':>9} {'min s':>7} {'max s':>7}   ({args.runs} fresh processes each)")
        for name, cmd in rows:
            times = [_time(cmd, env, work) for _ in range(args.runs)]
            print(f"{name:32} {statistics.median(times):9.3f} {min(times):7.3f} {max(times):7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
