"""The compile options a C / C++ file is read with: include paths, macros, the language
standard, forced includes — the flags a build gives the compiler.

``lift f.c -I include -DN=64 -std=c99 --function k`` and ``--compile-commands
build/compile_commands.json`` (the file's entry, as clangd reads it) both end up as one
:class:`CompileFlags`; the frontend reads the file with them (clang's parse, the
preprocessor) and ``--check`` compiles it with them, so the proof and the check see the
program the build compiles.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tenspiler.errors import BadInput, SourceLoc

__all__ = ["NO_FLAGS", "CompileFlags", "from_compile_commands"]

#: Options that take a path as their argument (joined ``-Ipath`` or separate ``-I path``).
_PATH_OPTIONS = ("-I", "-isystem", "-iquote", "-idirafter", "-include")
#: Options that take a macro argument.
_MACRO_OPTIONS = ("-D", "-U")


@dataclass(frozen=True)
class CompileFlags:
    """Preprocessor and language options, in command-line order, normalised: paths are
    absolute, each option one string (``-I/abs/dir``, ``-DN=64``, ``-UNDEBUG``,
    ``-std=c99``, ``-include/abs/file.h``, ``-isystem/abs``, ``-iquote/abs``)."""

    args: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.args)

    @property
    def std(self) -> str | None:
        """The last ``-std=`` option's value, or ``None``."""
        found = [a[len("-std=") :] for a in self.args if a.startswith("-std=")]
        return found[-1] if found else None

    def command_line(self) -> list[str]:
        """The options as compiler arguments (``-include`` and the ``-i…`` path options as
        two arguments, which GCC and clang both require for ``-include``), without
        ``-std``."""
        out: list[str] = []
        for a in self.args:
            if a.startswith("-std="):
                continue
            for opt in ("-include", "-isystem", "-iquote", "-idirafter"):
                if a.startswith(opt):
                    out += [opt, a[len(opt) :]]
                    break
            else:
                out.append(a)
        return out

    @staticmethod
    def parse(options: Iterable[str], base: str | Path = ".") -> CompileFlags:
        """Normalise compiler options (``-I dir`` / ``-Idir``, ``-D``, ``-U``, ``-std=``,
        ``-include``, ``-isystem``, ``-iquote``, ``-idirafter``), relative paths resolved
        against ``base``; every other option is dropped (optimisation, warnings, outputs do
        not change what the source means to the frontend)."""
        items = list(options)
        out: list[str] = []
        i = 0
        while i < len(items):
            a = items[i]
            i += 1
            if a.startswith("-std="):
                out.append(a)
                continue
            opt = next((o for o in (*_PATH_OPTIONS, *_MACRO_OPTIONS) if a.startswith(o)), None)
            if opt is None:
                continue
            value = a[len(opt) :]
            if not value:
                if i >= len(items):
                    break
                value = items[i]
                i += 1
            if opt in _PATH_OPTIONS:
                value = str((Path(base) / value).resolve()) if not Path(value).is_absolute() else value
            out.append(opt + value)
        return CompileFlags(tuple(out))


#: No flags: the build's defaults only.
NO_FLAGS = CompileFlags()


def from_compile_commands(database: str | Path, source: str | Path) -> CompileFlags:
    """The flags of ``source``'s entry in a compilation database (``compile_commands.json``,
    the JSON compilation database of clang's tooling: ``directory``, ``file`` and
    ``arguments`` or ``command``), relative paths resolved against the entry's
    ``directory``.

    Raises:
        BadInput: the database cannot be read, is not a list of entries, or has no entry for
            ``source``.
    """
    db = Path(database)
    try:
        entries = json.loads(db.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise BadInput(f"cannot read the compilation database: {e}", SourceLoc(str(db), 1, 1)) from None
    if not isinstance(entries, list):
        raise BadInput("a compilation database is a JSON list of entries", SourceLoc(str(db), 1, 1))
    want = Path(source).resolve()
    for entry in entries:
        if not isinstance(entry, dict) or "file" not in entry:
            continue
        directory = Path(str(entry.get("directory", db.parent)))
        if not directory.is_absolute():
            directory = (db.parent / directory).resolve()
        file = Path(str(entry["file"]))
        if (directory / file).resolve() != want:
            continue
        args: Sequence[str]
        if isinstance(entry.get("arguments"), list):
            args = [str(a) for a in entry["arguments"]]
        else:
            args = shlex.split(str(entry.get("command", "")))
        return CompileFlags.parse(args[1:], directory)
    raise BadInput(f"no entry for {source} in the compilation database", SourceLoc(str(db), 1, 1))
