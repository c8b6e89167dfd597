"""The phases up to synthesis form layers — the loop IR, TensIR, the verification
conditions, the verifier and the synthesizer (CEGIS: it calls the verifier) — that import
only from themselves and from the layers below them (module-level and lazy imports alike),
so ``vc`` and ``synth`` are no longer an import cycle and every phase reads the loop IR from
``tenspiler.loops``, not from a frontend."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "tenspiler"

#: package → the tenspiler modules it may import (a prefix match on the dotted name)
ALLOWED: dict[str, tuple[str, ...]] = {
    "loops": ("tenspiler.loops", "tenspiler.errors", "tenspiler.ir.semantics"),
    "ir": ("tenspiler.ir", "tenspiler.loops.ir", "tenspiler.errors"),
    "vc": ("tenspiler.vc", "tenspiler.loops", "tenspiler.ir", "tenspiler.errors"),
    "verify": ("tenspiler.verify", "tenspiler.vc", "tenspiler.loops", "tenspiler.ir", "tenspiler.errors"),
    # CEGIS: the synthesizer asks the verifier, whose counterexamples become new states
    "synth": ("tenspiler.synth", "tenspiler.verify", "tenspiler.vc", "tenspiler.loops", "tenspiler.ir",
              "tenspiler.errors"),
}


def _imports(path: Path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out += [(node.lineno, node.module)]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
    return [(line, m) for line, m in out if m == "tenspiler" or m.startswith("tenspiler.")]


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_layers_import_only_downwards(package: str) -> None:
    bad = [f"{p.relative_to(PKG.parent)}:{line}: imports {m}"
           for p in sorted((PKG / package).glob("*.py"))
           for line, m in _imports(p)
           if not any(m == a or m.startswith(a + ".") for a in ALLOWED[package])]
    assert not bad, "\n".join(bad)


def test_no_frontend_holds_the_loop_ir() -> None:
    assert not (PKG / "frontend" / "loop_ir.py").exists()
    assert (PKG / "loops" / "ir.py").exists()


@pytest.mark.parametrize("kernel", [
    "benchmarks/kernels/reductions/argmax_first.c",   # one loop
    "tests/kernels/gemv_acc.c",                       # a two-deep nest
    "benchmarks/kernels/speed/softmax_whole.cc",      # loop phases
    "benchmarks/kernels/gemm/gemm_nn.c",              # a block loop
])
def test_every_kernel_shape_has_the_shared_interface(kernel: str) -> None:
    from tenspiler.frontend.c import parse_c_file
    from tenspiler.vc.analyze import analyze_kernel
    from tenspiler.vc.kernel import KernelShape

    k = analyze_kernel(parse_c_file(PKG.parent / kernel))
    assert isinstance(k, KernelShape)
