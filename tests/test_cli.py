"""The `lift` command: exit codes, --json contract, located errors, no partial outputs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tenspiler.cli import main

HERE = Path(__file__).parent
SAXPY = HERE.parent / "examples" / "saxpy.c"


def run(args: list[str], tmp_path: Path) -> tuple[int, str, str]:
    p = subprocess.run(
        [sys.executable, "-m", "tenspiler.cli", *args],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
        env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"},
    )
    return p.returncode, p.stdout, p.stderr


def test_json_contract(tmp_path: Path) -> None:
    code, out, _ = run([str(SAXPY), "--to", "numpy", "--json", "--check", "-o", str(tmp_path / "o")], tmp_path)
    assert code == 0
    d = json.loads(out)
    for key in ("status", "function", "summary", "invariants", "assumptions", "outputs",
                "timings", "certificate", "check", "message"):
        assert key in d
    assert d["status"] == "verified" and d["function"] == "saxpy"
    assert Path(d["outputs"]["numpy"]).exists() and Path(d["certificate"]).exists()
    assert d["check"]["numpy"]["ok"] is True


def test_human_output_and_recheck(tmp_path: Path) -> None:
    code, out, _ = run([str(SAXPY), "--to", "numpy"], tmp_path)
    assert code == 0
    assert "program summary" in out and "def saxpy(n, a, x, y):" in out
    cert = next(line.split("certificate: ")[1].split()[0] for line in out.splitlines() if "certificate:" in line)
    assert cert.startswith(str(tmp_path / "cache"))
    code, out, _ = run(["recheck", cert], tmp_path)
    assert code == 0 and "unsat unsat unsat unsat -> valid" in out


def test_recheck_rejects_a_tampered_certificate(tmp_path: Path) -> None:
    code, out, _ = run([str(SAXPY), "-o", str(tmp_path / "o")], tmp_path)
    cert = tmp_path / "o" / "saxpy.smt2"
    text = cert.read_text()
    # weaken the program summary inside the post-condition: the certificate must fail
    bad = text.replace("(assert (not (and (forall ((k Int)) (ite (and (<= 0 k) (< k n.0)) (= (select y.h k) (+ (* a.0",
                       "(assert (not (and (forall ((k Int)) (ite (and (<= 0 k) (< k n.0)) (= (select y.h k) (+ (* (+ a.0 1.0)")
    assert bad != text
    (tmp_path / "bad.smt2").write_text(bad)
    code, out, _ = run(["recheck", str(tmp_path / "bad.smt2")], tmp_path)
    assert code == 1 and "NOT VALID" in out


BAD_INPUTS = {
    "syntax.c": ("void f(int *a, int n) { for (int i = 0; i < n; ++i) a[i] = ; }\n", "1:", "syntax error"),
    "goto.c": ("void f(int *a, int n) {\n  goto end;\n  end: a[0] = 1;\n}\n", "2:3", "not supported"),
    "malloc.c": ("void f(int *a, int n) {\n  for (int i = 0; i < n; ++i)\n    a[i] = malloc(4);\n}\n", "3:", "not supported"),
    "while.c": ("void f(int *a, int n) {\n  int i = 0;\n  while (a[i] != 0) { i++; }\n}\n", "3:3", "not supported"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_is_located_exit_2_and_writes_nothing(name: str, tmp_path: Path) -> None:
    text, where, what = BAD_INPUTS[name]
    src = tmp_path / name
    src.write_text(text)
    out_dir = tmp_path / "out"
    code, out, err = run([str(src), "--to", "numpy", "-o", str(out_dir)], tmp_path)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{src}:{where}") and what in lines[0]
    assert out == ""
    assert not out_dir.exists()
    assert not (tmp_path / "cache").exists()


def test_missing_function_name(tmp_path: Path) -> None:
    code, _, err = run([str(SAXPY), "--function", "nope"], tmp_path)
    assert code == 2
    assert "nope" in err and "saxpy" in err and err.count("\n") == 1


def test_unknown_backend_lists_known(tmp_path: Path) -> None:
    code, _, err = run([str(SAXPY), "--to", "cobol"], tmp_path)
    assert code == 2 and "numpy" in err


def test_not_lifted_exit_1(tmp_path: Path) -> None:
    code, out, _ = run([str(HERE / "kernels" / "prefix_sum.c"), "--json"], tmp_path)
    assert code == 1
    d = json.loads(out)
    assert d["status"] == "not_lifted" and "scan" in d["message"]


def test_main_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(HERE / "kernels" / "recurrence.c")]) == 1
    assert "recurrence" in capsys.readouterr().err


def test_cxx_outside_the_subset_is_refused_clearly(tmp_path: Path) -> None:
    src = tmp_path / "k.cc"
    src.write_text("#include <vector>\nusing namespace std;\nfloat f(vector<bool> a) { return a[0]; }\n")
    code, out, err = run([str(src)], tmp_path)
    assert code == 2 and out == ""
    assert err.strip() == (
        f"{src}:3:16: vector of 'bool' is not supported "
        "(element types: float, double, int, int32_t, uint8_t)"
    )
    assert list(tmp_path.iterdir()) == [src]
