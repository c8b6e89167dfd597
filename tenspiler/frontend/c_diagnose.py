"""The C compiler's own word on a file pycparser cannot parse.

pycparser reports a syntax error at the token where its grammar got stuck, which for a
missing ``;`` is the next statement (``5:3: before 's'``). clang names the place a person
looks for (``4:12: expected ';' at end of declaration``). When the ``clang`` Python module
(the libclang bindings, e.g. the ``libclang`` wheel) can be imported, :func:`first_parse_error`
parses the original text with it, with the build's language flags and the system compiler's
own header folder (``stddef.h``; the wheel ships none), and returns its first parse error in
the file itself. Without libclang, or when clang finds no parse error (pycparser refuses
more than C does), the caller keeps pycparser's message.

This is the C frontend's error path for text clang accepted and pycparser does not
(:mod:`tenspiler.frontend.c_unit` reads every file with clang first).
"""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

from tenspiler.errors import BadInput, SourceLoc
from tenspiler.frontend.preprocess import build_flags, compiler
from tenspiler.runner import run_command

__all__ = ["first_parse_error"]


def first_parse_error(text: str, filename: str, cxx: bool) -> BadInput | None:
    """clang's first parse error (category "Parse Issue", severity error or fatal) located
    in ``filename`` itself, as ``file:line:col: syntax error: clang's message``; ``None``
    when libclang is not available or reports none."""
    try:
        import clang.cindex as ci
    except ImportError:
        return None
    args = [*build_flags(cxx), *(["-isystem", d] if (d := _compiler_include_dir(cxx)) else [])]
    try:
        tu = ci.Index.create().parse(filename, args=args, unsaved_files=[(filename, text)], options=0)
        diagnostics = list(tu.diagnostics)
    except Exception:  # libclang without its shared library, or failing: pycparser's message stays
        return None
    for d in diagnostics:
        f = d.location.file
        if (d.severity >= ci.Diagnostic.Error and d.category_name == "Parse Issue"
                and f is not None and f.name == filename):
            return BadInput(f"syntax error: {d.spelling}", SourceLoc(filename, d.location.line, d.location.column))
    return None


@functools.cache
def _compiler_include_dir(cxx: bool) -> str | None:
    """The system compiler's own header folder (``cc -print-file-name=include``), or
    ``None`` without a compiler."""
    cc = compiler(cxx)
    if shutil.which(cc) is None:
        return None
    r = run_command([cc, "-print-file-name=include"], timeout=10)
    d = r.stdout.strip()
    return d if r.returncode == 0 and Path(d).is_dir() else None
