"""One set of macros (issue 32): the proof (the frontend's preprocessing), ``--check`` (the
compiled original, ``tenspiler/check/c.py``) and so the generated code read a kernel with the
predefined macros of one build — ``cc -std=gnu17 -O2 -fPIC`` (``c++ -std=c++17 ...`` for
C++): ``__OPTIMIZE__`` is defined and ``__NO_INLINE__`` is not. Before, the proof read the
``-O0`` macros and the check compiled with ``-O2``, so an ``#ifdef __OPTIMIZE__`` kernel was
proved one way and checked another."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tenspiler.check import c as check_c
from tenspiler.frontend import preprocess
from tenspiler.frontend.c import parse_c_file
from tenspiler.pipeline import lift_file

MACROS = Path(__file__).parent / "kernels" / "issue32" / "macros"
needs_cc = pytest.mark.skipif(shutil.which(preprocess.compiler(False)) is None, reason="no C compiler")
needs_cxx = pytest.mark.skipif(shutil.which(preprocess.compiler(True)) is None, reason="no C++ compiler")


def test_the_check_compiles_with_the_frontends_build_flags() -> None:
    assert check_c.CFLAGS[: len(preprocess.C_BUILD_FLAGS)] == preprocess.C_BUILD_FLAGS
    assert check_c.CXXFLAGS[: len(preprocess.CXX_BUILD_FLAGS)] == preprocess.CXX_BUILD_FLAGS
    assert "-O2" in preprocess.C_BUILD_FLAGS and "-O2" in preprocess.CXX_BUILD_FLAGS


@needs_cc
def test_the_frontend_reads_the_macros_of_the_checked_build() -> None:
    """The frontend's predefined macros are exactly those of the check's compile command
    (its other flags, ``-shared`` and ``-Werror=...``, define none)."""
    macros = dict(preprocess.predefined_macros())
    assert macros.get("__OPTIMIZE__") == "1"
    assert "__NO_INLINE__" not in macros
    cc = preprocess.compiler(False)
    out = subprocess.run([cc, "-x", "c", *check_c.CFLAGS, "-dM", "-E", "-", "-o", "-"], input="",
                         capture_output=True, text=True, check=True).stdout
    built = {line.split()[1]: " ".join(line.split()[2:]) for line in out.splitlines()
             if line.startswith("#define ") and "(" not in line.split()[1]}
    assert built == macros


@needs_cxx
def test_a_cxx_kernel_reads_the_cxx_builds_macros() -> None:
    macros = dict(preprocess.predefined_macros(cxx=True))
    assert macros.get("__cplusplus") == "201703L"
    assert macros.get("__OPTIMIZE__") == "1"
    assert "__cplusplus" not in dict(preprocess.predefined_macros())


@needs_cc
def test_optimize_branch_is_proved_and_checked_alike() -> None:
    """``#ifdef __OPTIMIZE__`` and ``#ifndef __NO_INLINE__`` take the ``-O2`` branches in the
    proof (the summary has 3 and 1, not 5 and 100), and ``--check``, which compiles with
    ``-O2``, agrees."""
    path = MACROS / "optimize_branch.c"
    res = lift_file(path, check=True)
    assert res.status == "verified", res.message
    assert res.check and all(c["ok"] for c in res.check.values()), res.check
    assert res.summary is not None and ", 3, *), 1, +)" in res.summary
    # without the check the proof reads the same branch
    res = lift_file(path, check=False)
    assert res.status == "verified" and ", 3, *), 1, +)" in (res.summary or "")


@needs_cxx
def test_optimize_branch_of_a_cxx_kernel() -> None:
    path = MACROS / "optimize_branch.cc"
    res = lift_file(path, check=True)
    assert res.status == "verified", res.message
    assert res.check and all(c["ok"] for c in res.check.values()), res.check
    assert res.summary is not None and "3.0, *)" in res.summary


@needs_cc
def test_the_loop_ir_has_the_optimised_constants() -> None:
    body = repr(parse_c_file(MACROS / "optimize_branch.c").body)
    assert "Const(value=3" in body and "Const(value=1," in body
    assert "Const(value=5" not in body and "Const(value=100" not in body
