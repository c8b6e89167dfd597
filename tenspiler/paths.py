"""Where tenspiler keeps its files, and how it writes them.

* :func:`cache_root` is the one folder of everything tenspiler keeps between runs: the
  result cache (``results/``, :mod:`tenspiler.cache`) and the certificates of lifts run
  without ``-o`` (``certificates/``). It is ``$TENSPILER_CACHE_DIR`` if set, else
  ``$XDG_CACHE_HOME/tenspiler``, else ``~/.cache/tenspiler`` (the XDG base directory
  specification).
* :func:`write_text_atomic` writes a file as a whole or not at all (a temporary file in the
  same folder, then ``os.replace``), with the permissions a plain ``open(path, "w")`` would
  give it: ``0o666`` less the process's umask (``mkstemp`` alone makes every file ``0600``).
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

__all__ = ["NO_LIFT_ENV", "cache_root", "certificate_dir", "current_umask", "write_text_atomic"]

#: Set (to anything non-empty): ``@tenspiler.lifted`` returns functions unchanged. The
#: check sets it in the child running the original Python function.
NO_LIFT_ENV = "TENSPILER_NO_LIFT"

_UMASK_LOCK = threading.Lock()


def cache_root() -> Path:
    """``$TENSPILER_CACHE_DIR``, else ``$XDG_CACHE_HOME/tenspiler``, else
    ``~/.cache/tenspiler`` (an empty variable counts as unset). Not created here."""
    env = os.environ.get("TENSPILER_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "tenspiler"


def certificate_dir() -> Path:
    """``certificates/`` under :func:`cache_root`: where a lift without ``-o`` writes its
    certificate."""
    return cache_root() / "certificates"


def current_umask() -> int:
    """The process's file mode creation mask (read from ``/proc/self/status`` on Linux,
    else set and restored under a lock)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def write_text_atomic(path: str | Path, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically: readers see the old file or the new one,
    never a part; an interrupted write leaves no temporary file. The parent folders are
    created; the file's mode is ``0o666 & ~umask``, as for ``open(path, "w")``. Returns
    ``path``.

    Raises:
        OSError: the folder or the file cannot be written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding=encoding) as f:
            os.fchmod(f.fileno(), 0o666 & ~current_umask())
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
