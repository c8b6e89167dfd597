"""Find the kernels below the paths given to ``lift bench``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: C, the C++ ``std::vector`` subset, and the Python frontend's input.
SUFFIXES = (".c", ".cc", ".cpp", ".py")
_SKIP_DIRS = {"__pycache__", "node_modules"}


@dataclass(frozen=True)
class KernelFile:
    """One kernel source file.

    Attributes:
        suite: ``<root-name>/<folder below the root>`` for a folder argument (just
            ``<root-name>`` for files directly in it), ``<parent>/<folder>`` for a file
            argument — the same naming as ``benchmarks/corpus.py``.
        path: the file, as found (relative if the argument was relative).
    """

    suite: str
    path: Path

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def id(self) -> str:
        """Key of the kernel across runs (baseline comparison): ``suite/file name``."""
        return f"{self.suite}/{self.path.name}"


def _wanted(p: Path, root: Path) -> bool:
    if not p.is_file() or p.suffix not in SUFFIXES or p.name == "__init__.py":
        return False
    parts = p.relative_to(root).parts[:-1]
    return not any(x.startswith(".") or x in _SKIP_DIRS for x in parts)


def discover(paths: list[Path]) -> list[KernelFile]:
    """Every kernel below ``paths`` (folders are walked recursively, sorted; a file is
    taken as it is, whatever its suffix). Duplicates (the same file reached twice) are
    dropped.

    Raises:
        FileNotFoundError: a path does not exist.
    """
    found: list[KernelFile] = []
    seen: set[Path] = set()
    for root in paths:
        if root.is_dir():
            name = root.resolve().name
            files = sorted((f for f in root.rglob("*") if _wanted(f, root)), key=lambda f: f.as_posix())
            for f in files:
                sub = f.relative_to(root).parent.as_posix()
                suite = name if sub == "." else f"{name}/{sub}"
                if f.resolve() not in seen:
                    seen.add(f.resolve())
                    found.append(KernelFile(suite, f))
        elif root.is_file():
            r = root.resolve()
            if r not in seen:
                seen.add(r)
                found.append(KernelFile(f"{r.parent.parent.name}/{r.parent.name}", root))
        else:
            raise FileNotFoundError(f"{root}: no such file or folder")
    return found
