"""Every failure of `lift` is one located line with the README's exit code (issue 33):
output paths checked before any work, missing extras, unreadable inputs, certificates that
are not SMT-LIB, paths given to the Python API that name no file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenspiler import pipeline
from tenspiler.cli import main
from tenspiler.synth import search

HERE = Path(__file__).parent
SAXPY = HERE.parent / "examples" / "saxpy.c"


@pytest.fixture(autouse=True)
def _cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _no_synthesis(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if the lift gets as far as synthesis."""

    def boom(*_a: object, **_k: object) -> None:
        raise AssertionError("synthesis ran: the output path was not checked first")

    monkeypatch.setattr(search, "synthesize", boom)  # the pipeline imports it when it runs


@pytest.mark.parametrize("where", ["file", "file/sub", "/proc/x"])
def test_unusable_output_dir_exit_2_before_parsing(where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("a file\n")
    out = where if where.startswith("/") else str(tmp_path / where)
    monkeypatch.setattr(pipeline, "parse_source_file", lambda *_a: pytest.fail("parsed before checking -o"))
    assert main([str(SAXPY), "--no-check", "-o", out]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"{out}: ")
    assert "not a directory" in err or "cannot write" in err
    assert (tmp_path / "file").read_text() == "a file\n" and sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_existing_foreign_file_exit_2_before_synthesis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "saxpy.smt2").write_text("my notes\n")
    _no_synthesis(monkeypatch)
    assert main([str(SAXPY), "--no-check", "-o", str(out)]) == 2
    assert capsys.readouterr().err == f"{out / 'saxpy.smt2'}: already exists (use --force to overwrite)\n"
    assert sorted(p.name for p in out.iterdir()) == ["saxpy.smt2"]
    assert (out / "saxpy.smt2").read_text() == "my notes\n"


def test_output_is_a_directory_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "out" / "saxpy.smt2").mkdir(parents=True)
    _no_synthesis(monkeypatch)
    assert main([str(SAXPY), "--no-check", "-o", str(tmp_path / "out"), "--force"]) == 2
    assert capsys.readouterr().err == f"{tmp_path / 'out' / 'saxpy.smt2'}: is a directory\n"


def test_identical_outputs_are_no_conflict_and_a_changed_one_is(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The README's commands in order: the second backend writes the same certificate."""
    out = tmp_path / "out"
    assert main([str(SAXPY), "--no-check", "--to", "numpy", "-o", str(out)]) == 0
    cert = (out / "saxpy.smt2").read_text()
    assert main([str(SAXPY), "--no-check", "--to", "tpc_c", "-o", str(out)]) == 0
    assert main([str(SAXPY), "--no-check", "--to", "numpy", "-o", str(out)]) == 0  # the same command again
    assert (out / "saxpy.smt2").read_text() == cert and (out / "saxpy.tpc.c").exists()
    capsys.readouterr()
    # a certificate of the same function with other content: refused, nothing written
    (out / "saxpy.smt2").write_text(cert + "; edited\n")
    (out / "saxpy.py").unlink()
    assert main([str(SAXPY), "--no-check", "--to", "numpy", "-o", str(out)]) == 2
    assert capsys.readouterr().err == f"{out / 'saxpy.smt2'}: already exists (use --force to overwrite)\n"
    assert not (out / "saxpy.py").exists() and not [p for p in out.iterdir() if p.name.startswith(".")]
    assert main([str(SAXPY), "--no-check", "--to", "numpy", "-o", str(out), "--force"]) == 0
    assert (out / "saxpy.smt2").read_text() == cert


@pytest.mark.parametrize(("backend", "module", "extra"),
                         [("torch", "torch", "torch"), ("tensorflow", "tensorflow", "tf"), ("jax", "jaxlib", "jax"),
                          ("mlx", "mlx", "mlx")])
def test_check_without_the_library_exit_2_before_lifting(backend: str, module: str, extra: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """--check runs the generated code: its library missing (simulated) is exit 2 with the
    pip install line, before synthesis; without --check the code is still generated."""
    import sys

    import tenspiler

    monkeypatch.setitem(sys.modules, module, None)  # importlib.util.find_spec(module) is None
    # the source is parsed first (a missing file is reported before a backend loads), then
    # the backend's library is looked for, before any synthesis
    monkeypatch.setattr(search, "synthesize", lambda *_a, **_k: pytest.fail("synthesis ran with a backend missing"))
    assert main([str(SAXPY), "--to", f"numpy,{backend}", "--check", "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"pip install 'tenspiler[{extra}]'" in err and module in err
    assert not (tmp_path / "out").exists()
    with pytest.raises(tenspiler.BadInput, match=rf"pip install 'tenspiler\[{extra}\]'"):
        tenspiler.lift(SAXPY, to=backend, check=True, cache=False)
    monkeypatch.undo()
    monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main([str(SAXPY), "--to", backend, "--no-check"]) == 0  # generating needs no library


def test_check_all_skips_a_library_that_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from tenspiler.codegen.registry import resolve_backends

    monkeypatch.setitem(sys.modules, "torch", None)
    assert "torch" not in resolve_backends(["all"], runnable=True)
    assert "torch" in resolve_backends(["all"])


def test_recheck_of_a_file_that_is_not_smtlib_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["recheck", str(SAXPY)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{SAXPY}: error: not an SMT-LIB certificate: ") and err.count("\n") == 1
    assert main(["recheck", str(tmp_path / "nope.smt2")]) == 2
    assert capsys.readouterr().err == f"{tmp_path / 'nope.smt2'}: cannot read (No such file or directory)\n"


@pytest.mark.parametrize("name", ["k.c", "k.cc", "k.py", "k.smt2"])
def test_a_file_that_is_not_utf8_is_located_exit_2(name: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import tenspiler

    src = tmp_path / name
    src.write_bytes(b"int f(){}\n  \xaa\n")
    expected = f"{src}:2:3: error: cannot decode byte 0xaa as UTF-8"
    assert main(["recheck", str(src)] if name.endswith(".smt2") else [str(src), "--no-check"]) == 2
    assert capsys.readouterr().err == expected + "\n"
    if not name.endswith(".smt2"):
        with pytest.raises(tenspiler.BadInput) as e:
            tenspiler.lift(src, check=False, cache=False)
        assert str(e.value) == expected
        with pytest.raises(tenspiler.BadInput) as e:
            tenspiler.lift(str(src), check=False, cache=False)
        assert str(e.value) == expected


def test_not_lifted_is_one_plain_located_line(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    scan = HERE / "kernels" / "prefix_sum.c"
    assert main([str(scan), "--no-check"]) == 1
    assert capsys.readouterr().err == (
        f"{scan}:6:9: not lifted: 's' carries a value between iterations here (a scan), which TensIR cannot express\n"
    )
    from tenspiler.errors import NotLiftable

    def no_summary(*_a: object, **_k: object) -> None:
        raise NotLiftable("no summary found")

    monkeypatch.setattr(search, "synthesize", no_summary)
    assert main([str(SAXPY), "--no-check"]) == 1
    assert capsys.readouterr().err == f"{SAXPY}: not lifted: no summary found\n"


@pytest.mark.parametrize("path", ["examples/saxpy.c", "saxpy.cc", "k.py", "kernels/saxpy"])
def test_api_string_that_looks_like_a_missing_path(path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tenspiler

    monkeypatch.chdir(tmp_path)
    with pytest.raises(tenspiler.BadInput, match=f"^no such file: {path} "):
        tenspiler.lift(path, check=False, cache=False)


def test_api_one_line_source_text_is_still_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tenspiler

    monkeypatch.chdir(tmp_path)
    res = tenspiler.lift("void half(int *a, int n) { for (int i = 0; i < n; i++) a[i] = a[i] / 2; }",
                         check=False, cache=False)
    assert res.status == "verified"
    with pytest.raises(tenspiler.BadInput, match=r"<string>:1:\d+: syntax error"):
        tenspiler.lift("int f(int n) { return n +; }", check=False, cache=False)


MISSING_SEMICOLON = "#include <stdio.h>\nint f(int n) {\n  int s = 0\n  s = n;\n  return s;\n}\n"


@pytest.mark.parametrize("name", ["k.c", "k.cc"])
def test_c_syntax_error_where_the_compiler_puts_it(name: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("clang.cindex")
    src = tmp_path / name
    src.write_text(MISSING_SEMICOLON)
    assert main([str(src), "--no-check"]) == 2
    assert capsys.readouterr().err == f"{src}:3:12: syntax error: expected ';' at end of declaration\n"


@pytest.mark.parametrize(("name", "text"), [
    ("scale.c", "void scale(float *x, float a, int n) {\n  for (int i = 0; i < n; i++) x[i] = a * x[i];\n}\n"),
    ("scale.cc", "#include <vector>\nstd::vector<float> scale(std::vector<float> x, float a) {\n"
                 "  std::vector<float> out;\n  for (int i = 0; i < x.size(); i++) out.push_back(a * x[i]);\n"
                 "  return out;\n}\n"),
    ("dot.py", "def dot(xs, ys):\n    s = 0\n    for i in range(len(xs)):\n        s += xs[i] * ys[i]\n    return s\n"),
])
def test_a_byte_order_mark_is_not_part_of_the_program(name: str, text: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A UTF-8 BOM (saved by many Windows editors) is skipped, as GCC, clang and Python skip
    it; the check compiles / runs the file and agrees (issue 34: 46 real functions stopped
    at 'Illegal character')."""
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert main([str(path), "--check", "-o", str(tmp_path / "out")]) == 0, capsys.readouterr().err
    assert "verified" in capsys.readouterr().out
