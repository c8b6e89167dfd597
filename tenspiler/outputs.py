"""Output files of a lift (``-o DIR``): validated before any work, written all or nothing.

One rule decides whether a path may be written (:func:`check_outputs`), used twice by the
pipeline: before parsing (the directory itself, :func:`check_output_dir`), after parsing
with the contents not known yet (the certificate ``<function>.smt2``: a file that cannot be
this lift's output is refused before synthesis), and right before writing, with the
contents (:func:`write_outputs`). An existing file whose bytes are exactly what would be
written is not a conflict (two ``-o out/`` runs of one kernel to different backends write
the same certificate); any other existing file is kept unless ``force``.

Every error is :class:`~tenspiler.errors.BadInput` (CLI exit code 2) with the message
``path: what is wrong``.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from tenspiler.errors import BadInput
from tenspiler.paths import current_umask

__all__ = ["check_output_dir", "check_outputs", "write_outputs"]

#: The first line of a certificate (``Proof.certificate``) names the lifted function; a
#: phased proof's certificate has one such line per phase, after a ``; loop k of n`` line.
CERTIFICATE_HEADER = "; tenspiler certificate for {function!r}"


def check_output_dir(out_dir: str | Path) -> None:
    """Raise :class:`BadInput` unless ``out_dir`` is a directory, or can be created as one,
    that this process can write to. Nothing is left behind (a probe file is removed).

    Raises:
        BadInput: ``DIR: not a directory`` (an existing file or a file among its parents),
            or ``DIR: cannot write here (...)``.
    """
    out = Path(out_dir)
    existing = out
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        what = "not a directory" if existing == out else f"{existing} is not a directory"
        raise BadInput(f"{out}: {what}")
    try:  # os.access says yes to root under /proc and on some read-only mounts: try it
        probe = tempfile.mkdtemp(dir=existing, prefix=".tenspiler-probe-")
        os.rmdir(probe)
    except OSError as err:
        raise BadInput(f"{out}: cannot write here ({err.strerror or err})") from None


def check_outputs(files: Mapping[Path, str | None], force: bool, function: str | None = None) -> list[Path]:
    """The paths of ``files`` that have to be written, in order; raise for a conflict.

    Args:
        files: path → the text to be written there, or ``None`` when it is not known yet
            (only a certificate: the check before synthesis).
        force: existing files may be overwritten.
        function: the lifted function, for a certificate whose text is not known yet: an
            existing certificate of the same function may turn out identical and is
            decided when the text is known; any other existing file is refused now.

    Raises:
        BadInput: ``path: is a directory``; ``path: already exists (use --force to
            overwrite)`` for an existing file whose content differs (or cannot be the same).
    """
    todo: list[Path] = []
    for path, text in files.items():
        if path.is_dir():
            raise BadInput(f"{path}: is a directory")
        if not path.exists():
            todo.append(path)
            continue
        if text is not None and _same_bytes(path, text):
            continue  # exactly what would be written: nothing to do
        if text is None and function is not None and _may_be_certificate_of(path, function):
            continue  # decided when the text is known
        if not force:
            raise BadInput(f"{path}: already exists (use --force to overwrite)")
        todo.append(path)
    return todo


def write_outputs(files: Mapping[Path, str], force: bool) -> None:
    """Write ``files`` after :func:`check_outputs`: each text goes to a temporary file in
    the target's directory first, then every one is renamed into place, so a failure leaves
    none of them (the directories created for them may remain). An existing file with the
    same bytes is left untouched.

    Raises:
        BadInput: a conflict (:func:`check_outputs`) or a file that cannot be written
            (``path: cannot write (...)``).
    """
    todo = check_outputs(files, force)
    staged: list[tuple[str, Path]] = []
    try:
        for path in todo:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            except OSError as err:
                raise BadInput(f"{path}: cannot write ({err.strerror or err})") from None
            staged.append((tmp, path))
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                os.fchmod(f.fileno(), 0o666 & ~current_umask())  # as open(path, "w") would
                f.write(files[path])
        for tmp, path in staged:
            os.replace(tmp, path)
    finally:
        for tmp, _ in staged:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def _same_bytes(path: Path, text: str) -> bool:
    try:
        return path.read_bytes() == text.encode()
    except OSError:
        return False


def _may_be_certificate_of(path: Path, function: str) -> bool:
    """``path`` starts like a certificate of ``function`` (its first two lines)."""
    try:
        with path.open("rb") as f:
            head = f.read(4096).decode("utf-8", "replace").splitlines()[:2]
    except OSError:
        return False
    header = CERTIFICATE_HEADER.format(function=function)
    return any(line.startswith(header) for line in head)
