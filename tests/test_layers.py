"""The package's folders are its layers (docs/ARCHITECTURE.md, "Layers"): a module imports
only from its own layer and the layers below it, the import graph has no cycle, no module
imports another module's private names, and the entry points import the compiler lazily.

Imports are read from the source with :mod:`ast`: module-level and function-level (lazy)
imports alike; an import under ``if TYPE_CHECKING:`` counts for the layers (a lower layer
does not even name an upper one) but not for cycles (it is never executed).
"""

from __future__ import annotations

import ast
import graphlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "tenspiler"

#: The layers, bottom first: each entry is the module prefixes it holds. The base is what
#: every phase shares — the one arithmetic (``ir/semantics.py``), the loop IR's types, the
#: error classes and the version.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("tenspiler.version", "tenspiler.errors", "tenspiler.budget", "tenspiler.ir.semantics", "tenspiler.loops.ir",
              "tenspiler.runner", "tenspiler.paths", "tenspiler.reference")),
    ("loops", ("tenspiler.loops",)),
    ("ir", ("tenspiler.ir",)),
    ("vc", ("tenspiler.vc",)),
    ("verify", ("tenspiler.verify",)),
    ("synth", ("tenspiler.synth",)),  # CEGIS: the synthesizer asks the verifier
    ("frontend", ("tenspiler.frontend",)),
    ("act", ("tenspiler.act",)),
    ("codegen", ("tenspiler.codegen",)),
    ("check", ("tenspiler.check",)),
    ("driver", ("tenspiler.pipeline", "tenspiler.cache", "tenspiler.result", "tenspiler.outputs")),
    ("api", ("tenspiler.api",)),
    ("apps", ("tenspiler.cli", "tenspiler.bench", "tenspiler.fuzz", "tenspiler.__main__", "tenspiler")),
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def layer_of(module: str) -> int:
    """Index in :data:`LAYERS` of the longest prefix holding ``module``."""
    best: tuple[int, int] | None = None
    for k, (_, prefixes) in enumerate(LAYERS):
        for pre in prefixes:
            if (module == pre or module.startswith(pre + ".")) and (best is None or len(pre) > best[0]):
                best = (len(pre), k)
    assert best is not None, f"{module} is in no layer: add it to LAYERS and docs/ARCHITECTURE.md"
    return best[1]


@dataclass(frozen=True)
class Import:
    line: int
    target: str          # the imported module (``from m import name``: ``m.name`` if that is a module)
    names: tuple[str, ...]  # names imported from ``target`` (``from m import a, b``), else ()
    type_only: bool


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str) -> list[Import]:
    path = MODULES[module]
    tree = ast.parse(path.read_text())
    type_only: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test):
            type_only |= {id(x) for b in n.body for x in ast.walk(b)}
    out: list[Import] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            out += [Import(n.lineno, a.name, (), id(n) in type_only) for a in n.names
                    if a.name.split(".")[0] == "tenspiler"]
        elif isinstance(n, ast.ImportFrom):
            mod = _resolve(module, path, n)
            if mod.split(".")[0] != "tenspiler":
                continue
            for a in n.names:
                sub = f"{mod}.{a.name}"
                if sub in MODULES:
                    out.append(Import(n.lineno, sub, (), id(n) in type_only))
                else:
                    out.append(Import(n.lineno, mod, (a.name,), id(n) in type_only))
    return out


def test_every_module_is_in_a_layer() -> None:
    for m in MODULES:
        layer_of(m)


def test_layers_import_only_downwards() -> None:
    bad = []
    for m in MODULES:
        for imp in imports_of(m):
            if imp.target in MODULES and layer_of(imp.target) > layer_of(m):
                bad.append(f"{_rel(MODULES[m])}:{imp.line}: {LAYERS[layer_of(m)][0]} imports "
                           f"{imp.target} ({LAYERS[layer_of(imp.target)][0]})")
    assert not bad, "\n".join(bad)


def test_no_import_cycle() -> None:
    graph = {m: {i.target for i in imports_of(m) if not i.type_only and i.target in MODULES and i.target != m}
             for m in MODULES}
    try:
        list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as e:
        pytest.fail(f"import cycle: {' -> '.join(e.args[1])}")


def test_no_private_name_is_imported_across_modules() -> None:
    """``from m import _x`` and ``alias._x`` for an imported tenspiler module ``alias``."""
    bad = []
    for m, path in MODULES.items():
        tree = ast.parse(path.read_text())
        aliases: set[str] = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                aliases |= {a.asname for a in n.names if a.asname and a.name.startswith("tenspiler.")}
            elif isinstance(n, ast.ImportFrom):
                mod = _resolve(m, path, n)
                for a in n.names:
                    if f"{mod}.{a.name}" in MODULES:
                        aliases.add(a.asname or a.name)
                    elif a.name.startswith("_") and not a.name.startswith("__") and mod.startswith("tenspiler"):
                        bad.append(f"{_rel(path)}:{n.lineno}: from {mod} import {a.name}")
        for n in ast.walk(tree):
            if (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in aliases
                    and n.attr.startswith("_") and not n.attr.startswith("__")):
                bad.append(f"{_rel(path)}:{n.lineno}: {n.value.id}.{n.attr}")
    assert not bad, "\n".join(bad)


def test_the_checks_above_would_catch_a_violation(tmp_path: Path) -> None:
    """The analysis itself: a cycle, an upward import and a private import are found."""
    src = "from tenspiler.pipeline import lift_file\nfrom tenspiler.ir.terms import _private\n"
    MODULES["tenspiler.vc.zz_probe"] = tmp_path / "zz_probe.py"
    MODULES["tenspiler.vc.zz_probe"].write_text(src)
    try:
        imps = imports_of("tenspiler.vc.zz_probe")
        assert {i.target for i in imps} == {"tenspiler.pipeline", "tenspiler.ir.terms"}
        with pytest.raises(AssertionError, match=r"imports tenspiler\.pipeline"):
            test_layers_import_only_downwards()
        with pytest.raises(AssertionError, match="import _private"):
            test_no_private_name_is_imported_across_modules()
        MODULES["tenspiler.vc.zz_probe"].write_text("import tenspiler.vc.zz_probe2\n")
        MODULES["tenspiler.vc.zz_probe2"] = tmp_path / "zz_probe2.py"
        MODULES["tenspiler.vc.zz_probe2"].write_text("from tenspiler.vc import zz_probe\n")
        with pytest.raises(pytest.fail.Exception, match="import cycle"):
            test_no_import_cycle()
    finally:
        MODULES.pop("tenspiler.vc.zz_probe", None)
        MODULES.pop("tenspiler.vc.zz_probe2", None)


def test_entry_points_import_the_compiler_lazily() -> None:
    """``lift --help`` and ``import tenspiler`` load neither the pipeline, a backend, the
    solver, sympy nor NumPy (the reason ``lift --help`` is fast)."""
    code = ("import sys, tenspiler, tenspiler.cli; "
            "print(' '.join(sorted(m for m in __import__('sys').modules if m.startswith(('tenspiler', 'sympy', 'cvc5', 'numpy')))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=ROOT).stdout.split()
    for heavy in ("tenspiler.pipeline", "tenspiler.api", "tenspiler.codegen.numpy_backend", "tenspiler.codegen.base",
                  "tenspiler.codegen.gemmini", "tenspiler.vc.symexec", "sympy", "cvc5", "numpy"):
        assert heavy not in loaded, f"{heavy} is imported by 'import tenspiler.cli'"
    assert "tenspiler.codegen.registry" in loaded


def test_the_pipeline_loads_its_phases_when_they_run() -> None:
    """``import tenspiler.pipeline`` (and so a lift that stops at a missing file) loads no
    frontend, synthesizer, solver or sympy."""
    code = ("import sys, tenspiler.pipeline; "
            "print(' '.join(m for m in sys.modules if m.startswith(('tenspiler', 'sympy', 'cvc5', 'pycparser'))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=ROOT).stdout.split()
    for heavy in ("tenspiler.synth", "tenspiler.verify", "tenspiler.vc", "tenspiler.check", "tenspiler.frontend.c",
                  "tenspiler.frontend.python", "sympy", "cvc5", "pycparser"):
        assert not any(m == heavy or m.startswith(heavy + ".") for m in loaded), f"{heavy} loaded by the pipeline"


def test_a_cached_lift_loads_no_compiler(tmp_path: Path) -> None:
    """A ``@tenspiler.lifted`` function served from the cache loads neither the pipeline,
    the synthesizer, the solver nor sympy (the reason a cached import is fast)."""
    (tmp_path / "kmod.py").write_text(
        "import tenspiler\n\n\n"
        "@tenspiler.lifted(to='numpy', check=False)\n"
        "def vadd(a: list[float], b: list[float], n: int) -> list[float]:\n"
        "    out = []\n    for i in range(n):\n        out.append(a[i] + b[i])\n    return out\n\n\n"
        "print(vadd.lifted.from_cache, float(vadd([1.0], [2.0], 1)[0]))\n")
    run = [sys.executable, "-c", "import sys, kmod; print(' '.join(m for m in sys.modules "
           "if m.startswith(('tenspiler', 'sympy', 'cvc5'))))"]
    env = dict(os.environ, TENSPILER_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    first = subprocess.run(run, capture_output=True, text=True, cwd=tmp_path, env=env, check=True)
    assert first.stdout.startswith("False 3.0"), first.stderr
    again = subprocess.run(run, capture_output=True, text=True, cwd=tmp_path, env=env, check=True)
    head, loaded = again.stdout.split("\n")[:2]
    assert head == "True 3.0", again.stderr
    for heavy in ("tenspiler.pipeline", "tenspiler.synth", "tenspiler.verify", "tenspiler.vc", "tenspiler.check",
                  "tenspiler.codegen", "sympy", "cvc5"):
        assert not any(m == heavy or m.startswith(heavy + ".") for m in loaded.split()), f"{heavy} loaded on a cache hit"


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

    k = analyze_kernel(parse_c_file(ROOT / kernel))
    assert isinstance(k, KernelShape)
    assert all(len(t) == 3 for t in k.trip_counts())
