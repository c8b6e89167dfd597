"""The neutral base of the Python-hosted backends (:mod:`tenspiler.codegen.python_host`):
its text helpers and the checks every dialect inherits."""

from __future__ import annotations

import dataclasses

import pytest

from tenspiler.codegen import get_backend
from tenspiler.codegen.array_backend import ArrayBackend
from tenspiler.codegen.numpy_backend import NUMPY, NumpyBackend
from tenspiler.codegen.python_host import PythonHostBackend, bare, fresh_name, indent
from tenspiler.errors import CodegenError
from tenspiler.ir.terms import ProgramSummary
from tests.test_codegen_numpy import KERNELS


def test_both_dialects_share_the_base_and_not_each_other() -> None:
    torch = get_backend("torch")
    assert isinstance(NUMPY, PythonHostBackend) and isinstance(torch, PythonHostBackend)
    assert isinstance(torch, ArrayBackend)
    assert not issubclass(ArrayBackend, NumpyBackend) and not issubclass(NumpyBackend, ArrayBackend)


def test_bare_keeps_the_parentheses_a_conditional_needs() -> None:
    assert bare("(a + b)") == "a + b"
    assert bare("(a)[0]") == "(a)[0]"
    assert bare("(a) + (b)") == "(a) + (b)"
    assert bare("(a if c else b)") == "(a if c else b)"
    assert bare("(v := x)") == "(v := x)"
    assert bare("(f(a if c else b))") == "f(a if c else b)"


def test_fresh_name_and_indent() -> None:
    taken = {"x", "x_"}
    assert fresh_name("x", taken) == "x__" and "x__" in taken
    assert fresh_name("lambda", taken) == "lambda_"
    assert indent("a\n\nb") == "    a\n\n    b"


@pytest.mark.parametrize(("backend", "name"), [
    ("numpy", "_c_div"), ("numpy", "np"), ("numpy", "lambda"),
    ("torch", "_nz"), ("torch", "_jit"), ("torch", "torch"), ("torch", "_np_c_div"), ("torch", "_where"),
    ("jax", "_x64"), ("mlx", "_sum"), ("tensorflow", "_as"),
])
def test_a_function_may_not_take_a_name_of_the_generated_module(backend: str, name: str) -> None:
    """A kernel named like a helper, an import or a builtin of the generated module would
    shadow it (the array backends let the names of their own helpers through before)."""
    k = KERNELS["vadd"]
    fn = dataclasses.replace(k.fn, name=name)
    ps = ProgramSummary(name, k.ps.outputs)
    with pytest.raises(CodegenError, match="cannot name the generated"):
        get_backend(backend).generate(fn, ps)
