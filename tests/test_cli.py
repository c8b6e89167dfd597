"""The `lift` command: exit codes, --json contract, located errors, no partial outputs."""

from __future__ import annotations

import json
import os
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
        env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
             **({"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {})},
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
    assert d["schema_version"] == 2
    assert Path(d["outputs"]["numpy"]).exists() and Path(d["certificate"]).exists()
    # the certificate names the source file, not the directory it was lifted from
    assert Path(d["certificate"]).read_text().splitlines()[0] == "; tenspiler certificate for 'saxpy' (saxpy.c:3:6)"
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


def test_python_m_tenspiler_is_lift(tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, "-m", "tenspiler", "--version"], capture_output=True, text=True,
                       timeout=60)
    from tenspiler.version import __version__

    assert p.returncode == 0 and p.stdout.strip() == f"tenspiler {__version__}"


def test_help_lists_the_subcommands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "recheck" in out and "bench" in out and "3 internal error" in out


def test_a_missing_extra_is_named_exit_2(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """--to gemmini without the [act] extra (simulated: egglog not found) names the extra."""
    import importlib.util

    from tenspiler.codegen import registry

    monkeypatch.setattr(registry, "_REGISTRY", {k: v for k, v in registry._REGISTRY.items() if k != "gemmini"})
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "egglog" else real(name, *a))
    assert main([str(SAXPY), "--to", "gemmini", "--no-check"]) == 2
    err = capsys.readouterr().err
    assert "egglog" in err and "pip install 'tenspiler[act]'" in err


def test_bench_without_its_extra_exit_2(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import tenspiler.bench.cli as bench_cli

    monkeypatch.setattr(bench_cli, "BENCH_MODULES", ("rich", "no_such_module_zz"))
    assert main(["bench", str(SAXPY)]) == 2
    assert "pip install 'tenspiler[bench]'" in capsys.readouterr().err


def test_internal_error_exit_3_never_verified(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    """An unexpected exception inside the pipeline is status internal_error, exit code 3, and
    the API raises InternalError (not the bad-input or not-lifted class)."""
    import tenspiler
    from tenspiler.synth import search

    def boom(*_a: object, **_k: object) -> None:
        raise RuntimeError("synthetic bug")

    monkeypatch.setattr(search, "synthesize", boom)  # the pipeline imports it when it runs
    monkeypatch.delenv("TENSPILER_DEBUG", raising=False)
    assert main([str(SAXPY), "--no-check"]) == 3
    assert "internal error (RuntimeError: synthetic bug)" in capsys.readouterr().err
    with pytest.raises(tenspiler.InternalError) as e:
        tenspiler.lift(SAXPY, cache_dir=tmp_path, check=False)
    assert e.value.result.status == "internal_error" and e.value.result.exit_code == 3
    assert not isinstance(e.value, tenspiler.BadInput | tenspiler.NotLiftable)


def test_quiet_and_verbose(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(SAXPY), "--no-check", "-v"]) == 0
    assert "[synthesis]" in capsys.readouterr().err
    assert main([str(SAXPY), "--no-check", "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_gemmini_search_time_limit_option(tmp_path: Path) -> None:
    src = HERE / "kernels" / "gemv_static.c"
    code, _, err = run([str(src), "--to", "gemmini", "--no-check", "--gemmini-search-s", "0", "-o", str(tmp_path / "o")], tmp_path)
    assert code == 0, err
    assert "run-time schedule choice" in (tmp_path / "o" / "gemv_static.gemmini.c").read_text()
    code, _, err = run([str(src), "--to", "gemmini", "--no-check", "--gemmini-search-s", "-2", "-o", str(tmp_path / "p")], tmp_path)
    assert code != 0 and "time limit" in err and not (tmp_path / "p" / "gemv_static.gemmini.c").exists()
    # the search's work budget (--gemmini-search-s is only its wall-clock safety net)
    code, _, err = run([str(src), "--to", "gemmini", "--no-check", "--gemmini-search-candidates", "5", "-o", str(tmp_path / "q")],
                       tmp_path)
    assert code == 0, err
    assert "best of 5 candidates" in (tmp_path / "q" / "gemv_static.gemmini.c").read_text()


class _NoPlus:
    """A backend (registered for one test) with no rule for ``+``: saxpy's summary uses it."""

    name = "noplus"

    def supports(self, term: object) -> bool:
        return False

    def generate(self, fn: object, ps: object) -> object:
        from tenspiler.codegen import no_rule_error
        from tenspiler.ir.terms import Lit, ScalarOp
        from tenspiler.loops.ir import DType

        one = Lit(1, DType.INT)
        raise no_rule_error(self.name, ScalarOp("+", one, one, DType.INT), ("lit",))


@pytest.fixture
def noplus(monkeypatch: pytest.MonkeyPatch) -> str:
    from tenspiler.codegen import registry

    monkeypatch.setitem(registry._REGISTRY, "noplus", _NoPlus())
    return "noplus"


def test_a_backend_without_a_rule_declines_alone(noplus: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """One backend that cannot emit the summary is named in a warning and not emitted; the
    others are emitted and checked, exit code 0 (README, "Several backends")."""
    out = tmp_path / "o"
    code = main([str(SAXPY), "--to", f"numpy,{noplus}", "--check", "--json", "-o", str(out)])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    d = json.loads(cap.out)
    assert d["status"] == "verified" and list(d["code"]) == ["numpy"] and list(d["check"]) == ["loop-ir", "numpy"]
    assert d["declined"] == {noplus: "no rule for scalar_op(+) (in (1 + 1))"}
    assert f"{SAXPY}: warning: {noplus}: no rule for scalar_op(+) (in (1 + 1)) (not emitted)" in cap.err.splitlines()
    assert sorted(p.name for p in out.iterdir()) == ["saxpy.py", "saxpy.smt2"]


def test_no_backend_emitting_is_not_lifted_exit_1(noplus: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main([str(SAXPY), "--to", noplus, "--no-check"])
    cap = capsys.readouterr()
    assert code == 1 and cap.out == ""
    assert cap.err.strip() == f"{SAXPY}: not lifted: backend 'noplus' has no rule for scalar_op(+) (in (1 + 1))"
