"""Mutation testing of the trusted base with mutmut (results: ``benchmarks/results/mutation.md``).

    python benchmarks/mutation.py [--workdir DIR] [--max-children N] [--only MODULE ...] [MUTANT-GLOB ...]

The trusted base is the code whose bugs would turn a wrong program into a "verified" one:
the single definition of scalar arithmetic (``tenspiler/ir/semantics.py``), the C11 typing
gate (``tenspiler/frontend/c_types.py``), the division-by-zero side conditions
(``divisors``/``cond_divisors`` in ``tenspiler/vc/kernel.py``), the C preprocessor
(``tenspiler/frontend/preprocess.py``) and the SMT-LIB encoding of TensIR
(``tenspiler/ir/smt.py``).

mutmut (3.x) needs its configuration in ``setup.cfg`` or ``[tool.mutmut]`` and writes a
``mutants/`` tree and cache next to it, so the run happens in a scratch copy of the
repository (``--workdir``, default ``/tmp/tenspiler-mutation``): ``tenspiler/``, ``tests/``
and ``pyproject.toml`` are copied there and a ``setup.cfg`` with the ``[mutmut]`` section
below is written. Only the fast, targeted tests are run against each mutant (mutmut runs,
for each mutant, only the tests among these that executed the mutated function); the full
suite takes ~10 minutes and is far too slow per mutant. ``--max-children 1`` by default:
the machine is shared.

After the run, ``mutmut results --all true`` is parsed into a per-module table
(killed / survived / timeout / other / total) printed on stdout; the survivor names are
printed too (inspect one with ``mutmut show NAME`` in the work directory).
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The modules mutated, in priority order.
SCOPE = [
    "tenspiler/ir/semantics.py",
    "tenspiler/frontend/c_types.py",
    "tenspiler/vc/kernel.py",
    "tenspiler/frontend/preprocess.py",
    "tenspiler/ir/smt.py",
]

#: The fast tests each mutant is run against (~30 s in all on an unmutated tree).
TESTS = [
    "tests/test_semantics.py",
    "tests/test_c_semantics.py",
    "tests/test_frontend_c.py",
    "tests/test_tensir_smt.py",
    "tests/test_vc.py",
    "tests/test_trusted_base_mutants.py",
]

SETUP_CFG = """\
[mutmut]
source_paths=tenspiler
only_mutate=
{only}
pytest_add_cli_args_test_selection=
{tests}
pytest_add_cli_args=
    -p
    no:cacheprovider
    -q
{extra}
use_git_change_detection=false
"""


def prepare(workdir: Path, scope: list[str], tests: list[str], k: str | None = None) -> None:
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", ".pytest_cache")
    shutil.copytree(ROOT / "tenspiler", workdir / "tenspiler", ignore=ignore)
    shutil.copytree(ROOT / "tests", workdir / "tests", ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", workdir / "pyproject.toml")
    tests = [t for t in tests if (workdir / t).exists()]
    (workdir / "setup.cfg").write_text(
        SETUP_CFG.format(
            only="\n".join(f"    {p}" for p in scope),
            tests="\n".join(f"    {t}" for t in tests),
            extra=f"    -k\n    {k}" if k else "",
        ),
        encoding="utf-8",
    )


def module_of(mutant: str) -> str:
    # mutant names look like "tenspiler.ir.semantics.x_py_binop__mutmut_3"
    return mutant.split(".x")[0].split(".xǁ")[0]


def summarise(workdir: Path) -> dict[str, collections.Counter[str]]:
    out = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=workdir, capture_output=True, text=True, check=True,
    ).stdout
    table: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    survivors = []
    for line in out.splitlines():
        m = re.match(r"\s*(\S+):\s*(\S.*)$", line)
        if not m:
            continue
        name, status = m.group(1), m.group(2).strip()
        mod = re.sub(r"\.x[_ǁ].*$", "", name)
        table[mod][status] += 1
        if status == "survived":
            survivors.append(name)
    print(f"{'module':40} {'killed':>7} {'survived':>9} {'timeout':>8} {'other':>6} {'total':>6}")
    for mod, c in sorted(table.items()):
        total = sum(c.values())
        other = total - c["killed"] - c["survived"] - c["timeout"]
        print(f"{mod:40} {c['killed']:>7} {c['survived']:>9} {c['timeout']:>8} {other:>6} {total:>6}")
    print("\nsurvivors:")
    for s in survivors:
        print(" ", s)
    return table


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/tenspiler-mutation"))
    ap.add_argument("--max-children", type=int, default=1)
    ap.add_argument("--only", nargs="*", help="modules to mutate (default: the whole scope)")
    ap.add_argument("-k", dest="k", help="pytest -k expression applied to every test run (to drop slow tests)")
    ap.add_argument(
        "--before", action="store_true",
        help="leave tests/test_trusted_base_mutants.py out (the score before the killing tests)",
    )
    ap.add_argument("--names-file", type=Path, help="run the mutants named in this file (one a line)")
    ap.add_argument("--summary-only", action="store_true", help="only summarise an existing run")
    ap.add_argument(
        "mutants", nargs="*",
        help="mutant names or globs to run (default: all), e.g. 'tenspiler.vc.kernel.x_divisors*'",
    )
    args = ap.parse_args()
    workdir = args.workdir.resolve()
    if args.names_file:
        args.mutants += [n for n in args.names_file.read_text().split() if n]
    if not args.summary_only:
        tests = [t for t in TESTS if not (args.before and t.endswith("test_trusted_base_mutants.py"))]
        prepare(workdir, args.only or SCOPE, tests, args.k)
        if args.before:
            (workdir / "tests" / "test_trusted_base_mutants.py").unlink(missing_ok=True)
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        subprocess.run(
            ["nice", "-n", "10", sys.executable, "-m", "mutmut", "run", "--max-children", str(args.max_children), *args.mutants],
            cwd=workdir, env=env, check=False,
        )
    summarise(workdir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
