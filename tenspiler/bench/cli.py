"""``lift bench CORPUS...``: lift, verify, generate, check and re-check every kernel of one
or more corpora in parallel, write a report, compare with a baseline.

Exit codes: 0 every kernel verified (checked, certificate re-checked) and no regression;
1 some kernel failed or regressed; 2 bad usage.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shlex
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tenspiler.bench.baseline import NOISE_SECONDS, SLOWDOWN, compare, load_baseline
from tenspiler.bench.discover import SUFFIXES, KernelFile, discover
from tenspiler.bench.machine import machine, packages
from tenspiler.bench.task import default_hard_limit, kernel_spec
from tenspiler.cache import default_cache_dir
from tenspiler.version import SCHEMA_VERSION, __version__


class UsageError(Exception):
    """Bad usage: exit code 2."""


def bench_parser() -> argparse.ArgumentParser:
    from tenspiler.codegen import backend_names

    p = argparse.ArgumentParser(
        prog="lift bench",
        description=(
            "Lift, verify, generate and differential-check every kernel below the given "
            f"paths ({', '.join('*' + s for s in SUFFIXES)}), in parallel, and re-check each "
            "certificate with 'lift recheck' in a separate process. A kernel's suite is its "
            "folder relative to the corpus root (prefixed by the root's name)."
        ),
        epilog=(
            f"Regressions (--baseline): a kernel verified in the baseline and not now, or verified in "
            f"both runs and more than {SLOWDOWN:g}x slower (wall seconds of the lift); kernels under "
            f"{NOISE_SECONDS:g} s in both runs are not compared by time (noise). Improvements are "
            "printed too. Exit codes: 0 every kernel verified and no regression; 1 a kernel failed "
            "(not lifted, error, differential check, certificate re-check, time-out, crash) or "
            "regressed; 2 bad usage."
        ),
    )
    p.add_argument("corpus", nargs="+", type=Path, metavar="CORPUS", help="folders (searched recursively) or kernel files")
    p.add_argument("--to", default="numpy", metavar="BACKEND[,BACKEND...]",
                   help=f"target(s), comma-separated; known: {', '.join(backend_names())} (default: numpy)")
    p.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, metavar="N",
                   help="kernels lifted at the same time (default: the number of CPUs, %(default)s here)")
    p.add_argument("--timeout", type=float, default=60.0, metavar="S", help="synthesis budget per kernel in seconds (default 60)")
    p.add_argument("--hard-limit", type=float, metavar="S",
                   help="wall limit per kernel; a kernel still running then is killed and fails (default: 3 x --timeout + 60 s)")
    p.add_argument("--report", type=Path, metavar="DIR",
                   help="write report.json, report.md, report.html, plots, junit.xml and the generated files into DIR")
    p.add_argument("--force", action="store_true", help="write into a non-empty --report DIR (replacing an earlier report)")
    p.add_argument("--baseline", type=Path, metavar="REPORT", help="an earlier run's report.json to compare with")
    p.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="local worker processes (default) or Ray tasks (pip install 'tenspiler[ray]')")
    p.add_argument("--address", metavar="ADDR",
                   help="with --executor ray: the address of an existing Ray cluster (default: start a local Ray)")
    p.add_argument("--cache-dir", type=Path, metavar="DIR",
                   help="result cache: a kernel whose exact source verified, passed the check and re-checked "
                        "before is served from it (default: results/ under $TENSPILER_CACHE_DIR, else $XDG_CACHE_HOME/tenspiler, else ~/.cache/tenspiler)")
    p.add_argument("--no-cache", action="store_true", help="lift every kernel afresh (the cache is neither read nor written)")
    return p


class _Progress:
    """A rich progress bar on stderr when it is a terminal; silent otherwise."""

    def __init__(self, total: int) -> None:
        from rich.console import Console

        self.console = Console(stderr=True)
        self.live = self.console.is_terminal
        self.failed = 0
        if not self.live:
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(
            SpinnerColumn(), TextColumn("lift bench"), BarColumn(), MofNCompleteColumn(),
            TextColumn("[red]{task.fields[failed]} failed"), TextColumn("elapsed"),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            console=self.console, transient=True,
        )
        self.task = self.bar.add_task("kernels", total=total, failed=0)
        self.bar.start()

    def advance(self, rec: dict[str, Any]) -> None:
        if rec["outcome"] != "verified":
            self.failed += 1
        if not self.live:
            return
        if rec["outcome"] != "verified":
            from rich.markup import escape

            reason = " ".join((rec.get("reason") or "").split())[:160]
            self.bar.console.print(f"[red]✗[/red] {escape(rec['id'])}: {escape(rec['outcome'])}: {escape(reason)}",
                                   highlight=False)
        self.bar.update(self.task, advance=1, failed=self.failed)

    def stop(self) -> None:
        if self.live:
            self.bar.stop()


def _prepare_report(report: Path, force: bool) -> None:
    from tenspiler.bench.report import KERNEL_DIR, REPORT_FILES

    if report.exists() and not report.is_dir():
        raise UsageError(f"--report {report}: exists and is not a folder")
    if report.is_dir() and any(report.iterdir()):
        if not force:
            raise UsageError(f"--report {report}: folder is not empty (use --force to write into it)")
        import shutil

        for name in REPORT_FILES:
            (report / name).unlink(missing_ok=True)
        shutil.rmtree(report / KERNEL_DIR, ignore_errors=True)
    report.mkdir(parents=True, exist_ok=True)


#: The ``[bench]`` extra: what ``lift bench`` imports beyond the core install.
BENCH_MODULES = ("rich", "matplotlib", "junitparser")


def missing_bench_modules() -> list[str]:
    """The modules of the ``[bench]`` extra that are not installed."""
    import importlib.util

    return [m for m in BENCH_MODULES if importlib.util.find_spec(m) is None]


def bench_main(argv: Sequence[str]) -> int:
    """``lift bench``; returns the exit code (2: bad usage, or the ``[bench]`` extra missing)."""
    argv = list(argv)
    args = bench_parser().parse_args(argv)
    try:
        missing = missing_bench_modules()
        if missing:
            raise UsageError(f"lift bench needs {', '.join(missing)}, which the core install does not include: "
                             "pip install 'tenspiler[bench]'")
        return _run(args, argv)
    except UsageError as err:
        print(f"lift bench: error: {err}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace, argv: list[str]) -> int:
    from tenspiler.bench import report as rpt
    from tenspiler.bench.executors import ExecutorUnavailable, check_ray, run_local, run_ray
    from tenspiler.codegen import backend_names

    backends = [b.strip() for b in args.to.split(",") if b.strip()]
    unknown = [b for b in backends if b not in backend_names()]
    if not backends or unknown:
        raise UsageError(f"unknown backend(s) {', '.join(unknown) or '(none given)'}; known: {', '.join(backend_names())}")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.timeout <= 0 or (args.hard_limit is not None and args.hard_limit <= 0):
        raise UsageError("--timeout and --hard-limit must be positive")
    if args.address and args.executor != "ray":
        raise UsageError("--address needs --executor ray")
    if args.force and not args.report:
        raise UsageError("--force needs --report")
    try:
        kernels: list[KernelFile] = discover(args.corpus)
    except FileNotFoundError as err:
        raise UsageError(str(err)) from None
    if not kernels:
        raise UsageError(f"no kernels ({', '.join('*' + s for s in SUFFIXES)}) below {', '.join(map(str, args.corpus))}")
    baseline = None
    if args.baseline:
        try:
            baseline = load_baseline(args.baseline)
        except ValueError as err:
            raise UsageError(str(err)) from None
    if args.executor == "ray":
        try:
            check_ray()
        except ExecutorUnavailable as err:
            raise UsageError(str(err)) from None
    if args.report:
        _prepare_report(args.report, args.force)

    hard_limit = args.hard_limit if args.hard_limit is not None else default_hard_limit(args.timeout)
    cache_dir = None if args.no_cache else (args.cache_dir or default_cache_dir())
    specs = [kernel_spec(k.id, k.suite, k.path, backends, args.timeout, hard_limit, cache_dir) for k in kernels]
    started = dt.datetime.now(dt.UTC)
    t0 = time.perf_counter()
    stream: Iterator[dict[str, Any]] = (
        run_ray(specs, args.jobs, args.address) if args.executor == "ray" else run_local(specs, args.jobs)
    )
    records: list[dict[str, Any]] = []
    progress = _Progress(len(specs))
    try:
        for rec in stream:
            rpt.store_files(args.report, rec)
            records.append(rec)
            progress.advance(rec)
    finally:
        progress.stop()
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    seconds = time.perf_counter() - t0

    line = rpt.summary_line(records, seconds)
    cmp = compare(baseline, records, str(args.baseline)) if baseline is not None else None
    meta: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "tool": "tenspiler",
        "version": __version__,
        "date": started.isoformat(timespec="seconds"),
        "command": shlex.join(["lift", "bench", *argv]),
        "argv": sys.argv,
        "cwd": os.getcwd(),
        "commit": os.environ.get("GITHUB_SHA"),
        "machine": machine(),
        "packages": packages(("cvc5", "z3-solver", "pycparser", "sympy", "numpy", "ray")),
        "options": {
            "corpus": [str(c) for c in args.corpus], "backends": backends, "jobs": args.jobs,
            "timeout": args.timeout, "hard_limit": hard_limit, "executor": args.executor,
            "address": args.address,
        },
        "paths": "certificate and outputs are relative to the report folder",
        "seconds": round(seconds, 3),
        "counts": rpt.counts(records),
        "summary": line,
        "baseline": cmp.to_json() if cmp else None,
    }
    if args.report:
        rpt.write_report(args.report, meta, records)

    failed = [r for r in sorted(records, key=lambda r: r["id"]) if r["outcome"] != "verified"]
    for r in failed:
        print(f"FAILED {r['id']}: {rpt.LABELS.get(r['outcome'], r['outcome'])}: {rpt.one_line(r.get('reason'), 240)}")
    if cmp is not None:
        print(f"baseline {args.baseline}: {len(cmp.regressions)} regression(s), {len(cmp.improvements)} improvement(s)"
              + (f", {len(cmp.new)} new" if cmp.new else "") + (f", {len(cmp.missing)} missing" if cmp.missing else ""))
        for c in cmp.regressions:
            print(f"REGRESSION {c.line()}")
        for c in cmp.improvements:
            print(f"improved   {c.line()}")
    if args.report:
        print(f"report: {args.report / 'report.html'}")
    print(line)
    return 1 if failed or (cmp is not None and cmp.regressions) else 0
