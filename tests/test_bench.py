"""``lift bench``: discovery, parallel runs, the report files, baselines, exit codes, Ray.

A temporary corpus of tiny kernels: one that verifies (saxpy), one that cannot be lifted
(a recurrence), one with a syntax error, and a second verified one in another suite.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tenspiler.bench.baseline import compare, load_baseline
from tenspiler.bench.discover import discover
from tenspiler.bench.task import kernel_spec, run_child, run_kernel, stuck_at
from tenspiler.pipeline import LiftResult

SAXPY = """void saxpy(int n, float a, float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
"""
RECURRENCE = """void recurrence(int *a, int n)
{
    for (int i = 1; i < n; i++)
        a[i] = a[i - 1] + a[i];
}
"""
BROKEN = """void broken(int *a, int n)
{
    for (int i = 0; i < n; i++ {
        a[i] = 0;
    }
}
"""
RELU = "void relu(float *x, float *y, int n) { for (int i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f; }\n"

EXPECTED = {
    "corpus/blas/saxpy.c": "verified",
    "corpus/blas/recurrence.c": "not_lifted",
    "corpus/misc/broken.c": "error",
    "corpus/misc/act/relu.c": "verified",
}
SUMMARY = re.compile(r"^\d+ kernels: \d+ verified, \d+ failed( \(.*\))? in [0-9.]+ s$")


def make_corpus(root: Path) -> Path:
    c = root / "corpus"
    for rel, text in (("blas/saxpy.c", SAXPY), ("blas/recurrence.c", RECURRENCE),
                      ("misc/broken.c", BROKEN), ("misc/act/relu.c", RELU),
                      ("misc/README.txt", "not a kernel"), ("blas/__pycache__/x.py", "")):
        (c / rel).parent.mkdir(parents=True, exist_ok=True)
        (c / rel).write_text(text)
    return c


def bench(args: list[str], cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_CACHE_HOME=str(cwd / "cache"), TENSPILER_CACHE_DIR=str(cwd / "cache" / "tenspiler"))
    return subprocess.run([sys.executable, "-m", "tenspiler.cli", "bench", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """One local run over the whole corpus, two jobs, with a report (shared by the tests)."""
    root = tmp_path_factory.mktemp("bench")
    make_corpus(root)
    p = bench(["corpus", "--to", "numpy", "--jobs", "2", "--timeout", "20", "--report", "out"], root)
    return root, p


def kernels_of(report: Path) -> dict[str, dict[str, Any]]:
    return {k["id"]: k for k in json.loads((report / "report.json").read_text())["kernels"]}


def test_discovery(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    c = make_corpus(tmp_path)
    (c / "cxx").mkdir()
    for name in ("a.cc", "b.cpp", "c.py", "__init__.py", "d.h"):
        (c / "cxx" / name).write_text("")
    (c / ".hidden").mkdir()
    (c / ".hidden" / "e.c").write_text("")
    monkeypatch.chdir(tmp_path)
    ks = discover([Path("corpus")])
    assert {k.id for k in ks} == set(EXPECTED) | {"corpus/cxx/a.cc", "corpus/cxx/b.cpp", "corpus/cxx/c.py"}
    assert {k.suite for k in ks} == {"corpus/blas", "corpus/misc", "corpus/misc/act", "corpus/cxx"}
    assert [k.path for k in ks] == sorted(k.path for k in ks)
    # a file argument, and the same file twice: once
    one = discover([Path("corpus/blas/saxpy.c"), Path("corpus/blas")])
    assert [k.id for k in one].count("corpus/blas/saxpy.c") == 1
    with pytest.raises(FileNotFoundError):
        discover([Path("nope")])


def test_local_run_statuses_and_summary(local_run: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    root, p = local_run
    assert p.returncode == 1, p.stdout + p.stderr  # two kernels fail
    lines = p.stdout.strip().splitlines()
    assert SUMMARY.match(lines[-1]), lines[-1]
    assert lines[-1].startswith("4 kernels: 2 verified, 2 failed (1 not lifted, 1 error)")
    assert any(x.startswith("FAILED corpus/misc/broken.c: error:") and "syntax error" in x for x in lines)
    assert p.stderr.strip() == ""  # stderr is not a terminal: no progress bar
    ks = kernels_of(root / "out")
    assert {i: k["outcome"] for i, k in ks.items()} == EXPECTED
    assert {i: k["status"] for i, k in ks.items()} == EXPECTED


def test_report_files(local_run: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    root, _ = local_run
    out = root / "out"
    data = json.loads((out / "report.json").read_text())
    assert data["schema_version"] == 2
    assert data["version"] and data["date"] and data["machine"]["cpus"]
    assert data["command"].startswith("lift bench corpus") and data["options"]["jobs"] == 2
    lift_fields = set(LiftResult(status="x").to_json())
    for k in data["kernels"]:
        assert lift_fields <= set(k), lift_fields - set(k)
        assert {"suite", "path", "wall_seconds", "recheck", "outcome", "reason"} <= set(k)
    ks = kernels_of(out)
    saxpy = ks["corpus/blas/saxpy.c"]
    assert saxpy["suite"] == "corpus/blas" and saxpy["path"] == "corpus/blas/saxpy.c"
    assert saxpy["recheck"]["ok"] is True and set(saxpy["recheck"]["answers"]) == {"unsat"}
    assert saxpy["check"]["numpy"]["ok"] is True
    assert (out / saxpy["certificate"]).is_file() and (out / saxpy["outputs"]["numpy"]).is_file()
    assert "syntax error" in ks["corpus/misc/broken.c"]["reason"]
    assert ks["corpus/blas/recurrence.c"]["recheck"] is None
    # markdown: the suite table and a row per kernel
    md = (out / "report.md").read_text()
    assert "| corpus/blas | 2 | 1 | 1 |" in md and "| corpus/misc | broken.c | error |" in md
    # html: self-contained, both plots as data URIs
    html = (out / "report.html").read_text()
    assert html.count('src="data:image/png;base64,') == 2 and "saxpy.c" in html
    for png in ("lift-times.png", "status.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # junit: one testcase per kernel, classname = suite, a failure for each failed kernel
    tree = ET.parse(out / "junit.xml")
    cases = {(c.get("classname"), c.get("name")): c for c in tree.iter("testcase")}
    assert set(cases) == {("corpus/blas", "saxpy.c"), ("corpus/blas", "recurrence.c"),
                          ("corpus/misc", "broken.c"), ("corpus/misc/act", "relu.c")}
    fail = cases[("corpus/misc", "broken.c")].find("failure")
    assert fail is not None and fail.get("type") == "error" and "syntax error" in (fail.get("message") or "")
    assert cases[("corpus/blas", "saxpy.c")].find("failure") is None
    from junitparser import JUnitXml

    assert JUnitXml.fromfile(str(out / "junit.xml")).failures == 2


def test_exit_0_when_everything_verifies_and_force(tmp_path: Path) -> None:
    make_corpus(tmp_path)
    p = bench(["corpus/blas/saxpy.c", "corpus/misc/act", "--timeout", "20", "--jobs", "1", "--report", "r"], tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip().splitlines()[-1].startswith("2 kernels: 2 verified, 0 failed in ")
    # a non-empty report folder is refused (2) unless --force, which replaces the report
    p = bench(["corpus/blas/saxpy.c", "--timeout", "20", "--report", "r"], tmp_path)
    assert p.returncode == 2 and "not empty" in p.stderr
    p = bench(["corpus/blas/saxpy.c", "--timeout", "20", "--report", "r", "--force"], tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert set(kernels_of(tmp_path / "r")) == {"corpus/blas/saxpy.c"}  # suite of a file: its two parent folders
    assert not (tmp_path / "r" / "kernels" / "corpus" / "misc").exists()


@pytest.mark.parametrize("args, message", [
    (["nowhere"], "no such file"),
    (["empty"], "no kernels"),
    (["corpus", "--to", "cobol"], "unknown backend"),
    (["corpus", "--address", "127.0.0.1:6379"], "--address needs --executor ray"),
    (["corpus", "--baseline", "bad.json"], "not a lift bench report"),
    (["corpus", "--jobs", "0"], "--jobs"),
    (["corpus", "--executor", "spark"], "invalid choice"),
])
def test_bad_usage_exits_2(tmp_path: Path, args: list[str], message: str) -> None:
    make_corpus(tmp_path)
    (tmp_path / "empty").mkdir()
    (tmp_path / "bad.json").write_text('{"kernels": 3}')
    p = bench(args, tmp_path, timeout=60)
    assert p.returncode == 2 and message in p.stderr, p.stderr


def _fake_baseline(path: Path, kernels: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"tool": "tenspiler", "kernels": kernels}))
    return path


def test_baseline_regressions_and_improvements(tmp_path: Path) -> None:
    make_corpus(tmp_path)
    base = _fake_baseline(tmp_path / "old.json", [
        {"id": "corpus/blas/saxpy.c", "outcome": "not_lifted", "wall_seconds": 0.2},     # improvement
        {"id": "corpus/blas/recurrence.c", "outcome": "verified", "wall_seconds": 0.1},  # regression
        {"id": "corpus/gone/old.c", "outcome": "verified", "wall_seconds": 0.1},         # missing: no regression
    ])
    p = bench(["corpus", "--timeout", "20", "--baseline", str(base), "--report", "cmp"], tmp_path)
    assert p.returncode == 1
    recorded = json.loads((tmp_path / "cmp" / "report.json").read_text())["baseline"]
    assert [r["id"] for r in recorded["regressions"]] == ["corpus/blas/recurrence.c"], recorded
    assert "REGRESSION corpus/blas/recurrence.c: no longer verified (verified -> not_lifted)" in p.stdout
    assert "improved   corpus/blas/saxpy.c: now verified (not_lifted -> verified)" in p.stdout
    assert "1 regression(s), 1 improvement(s), 2 new, 1 missing" in p.stdout
    # a report is a baseline: compared with itself it has no regression and no improvement (the
    # time rule itself is test_compare_time_rule's; a wall-clock time is never asserted here)
    p = bench(["corpus/blas/saxpy.c", "--timeout", "20", "--report", "rep"], tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    report = load_baseline(tmp_path / "rep" / "report.json")
    assert report["kernels"][0]["id"] == "corpus/blas/saxpy.c"
    same = compare(report, report["kernels"])
    assert same.regressions == [] and same.improvements == [] and same.new == [] and same.missing == []


def test_compare_time_rule() -> None:
    def k(kid: str, outcome: str, s: float) -> dict[str, Any]:
        return {"id": kid, "outcome": outcome, "wall_seconds": s}

    # NOISE_SECONDS is 2: b stays under it in both runs; c leaves it
    old = {"kernels": [k("a", "verified", 2.0), k("b", "verified", 0.2), k("c", "verified", 0.2),
                       k("d", "verified", 6.0), k("e", "not_lifted", 1.0)]}
    new = [k("a", "verified", 5.0), k("b", "verified", 1.9), k("c", "verified", 2.1),
           k("d", "verified", 2.0), k("e", "not_lifted", 9.0), k("f", "verified", 1.0)]
    cmp = compare(old, new)
    assert [(c.id, c.kind) for c in cmp.regressions] == [("a", "slower"), ("c", "slower")]
    assert [(c.id, c.kind) for c in cmp.improvements] == [("d", "faster")]
    assert cmp.new == ["f"] and cmp.missing == []


def test_hard_limit_and_crash_are_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_corpus(tmp_path)
    p = bench(["corpus/blas/saxpy.c", "--hard-limit", "0.05", "--report", "r"], tmp_path)
    assert p.returncode == 1
    k = kernels_of(tmp_path / "r")["corpus/blas/saxpy.c"]
    assert k["outcome"] == "timeout" and "wall limit of 0.05 s" in k["reason"]
    assert "1 kernels: 0 verified, 1 failed (1 timed out)" in p.stdout
    # the child runner: a hung child is killed at the limit, a crash is reported by signal
    r = run_child([sys.executable, "-c", "import time; time.sleep(60)"], 0.5)
    assert r.timed_out and r.seconds < 10
    r = run_child([sys.executable, "-c", "import os; os.abort()"], 30)
    assert not r.timed_out and r.describe() == "killed by SIGABRT"
    # before the kill, a child with faulthandler registered prints where it was stuck
    code = ("import faulthandler, signal, time\nfaulthandler.register(signal.SIGUSR1, all_threads=True)\n"
            "def wait():\n    time.sleep(60)\nwait()\n")
    r = run_child([sys.executable, "-c", code], 1.5, dump_stack=True)
    assert r.timed_out and stuck_at(r.stderr) == 'File "<string>", line 4 in wait', r.stderr
    # a worker that dies without a result: "crashed", with the reason
    fake = tmp_path / "fakepython"
    fake.write_text("#!/bin/sh\necho 'Fatal Python error: Segmentation fault' >&2\nkill -SEGV $$\n")
    fake.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    spec = kernel_spec("x/saxpy.c", "x", Path("corpus/blas/saxpy.c"), ["numpy"], 20, 60)
    monkeypatch.setattr(sys, "executable", str(fake))
    rec = run_kernel(spec)
    assert rec["outcome"] == "crashed" and rec["status"] == "not_lifted"
    assert "killed by SIGSEGV" in rec["reason"] and "Segmentation fault" in rec["reason"]


def test_ray_executor_gives_the_same_statuses(local_run: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    pytest.importorskip("ray", reason="ray is not installed (it is in the dev extra: pip install -e '.[dev]')")
    root, _ = local_run
    p = bench(["corpus", "--executor", "ray", "--jobs", "2", "--timeout", "20", "--report", "out-ray", "--no-cache"],
              root, timeout=300)
    assert p.returncode == 1, p.stdout + p.stderr
    assert p.stdout.strip().splitlines()[-1].startswith("4 kernels: 2 verified, 2 failed")
    local, ray = kernels_of(root / "out"), kernels_of(root / "out-ray")
    assert {i: k["outcome"] for i, k in ray.items()} == {i: k["outcome"] for i, k in local.items()} == EXPECTED
    assert ray["corpus/blas/saxpy.c"]["summary"] == local["corpus/blas/saxpy.c"]["summary"]
    assert (root / "out-ray" / ray["corpus/blas/saxpy.c"]["certificate"]).is_file()
    assert json.loads((root / "out-ray" / "report.json").read_text())["options"]["executor"] == "ray"


def test_warm_cache_serves_verified_kernels(local_run: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    """The local run stored its verified kernels in the result cache: a second run serves
    them from it (same statuses, summaries, re-check results, files), lifts the rest again,
    and a changed source misses."""
    root, _ = local_run
    p = bench(["corpus", "--jobs", "2", "--timeout", "20", "--report", "out-warm"], root)
    assert p.returncode == 1, p.stdout + p.stderr
    first, warm = kernels_of(root / "out"), kernels_of(root / "out-warm")
    assert {i: k["outcome"] for i, k in warm.items()} == {i: k["outcome"] for i, k in first.items()}
    for i, k in warm.items():
        assert k["from_cache"] == (k["outcome"] == "verified"), i
        if k["from_cache"]:
            assert k["summary"] == first[i]["summary"] and k["recheck"]["ok"]
            assert (root / "out-warm" / k["certificate"]).is_file()
    p = bench(["corpus", "--jobs", "2", "--timeout", "20", "--report", "out-cold", "--no-cache"], root)
    assert not any(k["from_cache"] for k in kernels_of(root / "out-cold").values())
