"""A persistent, content-addressed cache of verified lift results.

Key: SHA-256 of the normalised source text (``\\r\\n`` → ``\\n``, trailing whitespace of
every line dropped), the language, the function name, the sorted backends, whether the
differential check ran and its seed, the tool version and a fingerprint of tenspiler's own
code (:func:`code_fingerprint`) — so a new version, or an edited checkout, of tenspiler never
reuses an old result. Value: one JSON file ``<key>.json`` holding the
:meth:`~tenspiler.pipeline.LiftResult.to_json` fields, the certificate text, and a SHA-256
of that payload.

Only verified results are stored. Writes are atomic (a temporary file in the cache folder,
then ``os.replace``: :func:`tenspiler.paths.write_text_atomic`; the file's mode honours the
umask). A read that finds an unreadable, malformed or tampered entry (the
stored digest does not match the payload, or the key inside does not match the file name)
treats it as a miss: the caller recomputes and the entry is overwritten — a corrupted entry
is never trusted.

Location: ``results/`` under :func:`tenspiler.paths.cache_root` (``$TENSPILER_CACHE_DIR``,
else ``$XDG_CACHE_HOME/tenspiler``, else ``~/.cache/tenspiler``); every entry point also
takes an explicit folder.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tenspiler.paths import cache_root, write_text_atomic
from tenspiler.version import __version__

__all__ = ["ResultCache", "cache_key", "code_fingerprint", "default_cache_dir", "normalise_source"]

#: Format of an entry; bump when the layout changes.
FORMAT = 1


@functools.cache
def code_fingerprint() -> str:
    """Hex SHA-256 of every source file of the installed ``tenspiler`` package (paths and
    contents, sorted): a result computed by other code is never reused, even when the
    version number did not change (a development checkout, a patched install)."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for f in sorted(root.rglob("*")):
        if f.is_file() and f.suffix in (".py", ".h", ".c", ".json", ".smt2") and "__pycache__" not in f.parts:
            h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def default_cache_dir() -> Path:
    """``results/`` under :func:`tenspiler.paths.cache_root`."""
    return cache_root() / "results"


def normalise_source(text: str) -> str:
    """Line endings unified and trailing whitespace dropped (edits that cannot change the
    meaning of C, C++ or Python source do not change the key)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n") + "\n"


def cache_key(
    source: str,
    language: str,
    function: str | None,
    backends: Sequence[str],
    check: bool = False,
    seed: int = 0,
) -> str:
    """Hex SHA-256 identifying one lift request (see the module docstring)."""
    parts = {
        "format": FORMAT,
        "version": __version__,
        "code": code_fingerprint(),
        "language": language,
        "function": function,
        "backends": sorted(backends),
        "check": bool(check),
        "seed": seed if check else None,
        "source": normalise_source(source),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class ResultCache:
    """A cache folder (created on first write)."""

    root: Path

    @classmethod
    def default(cls) -> ResultCache:
        return cls(default_cache_dir())

    def path(self, key: str) -> Path:
        return self.root / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored result (``to_json`` fields plus ``"certificate_text"``) or ``None``
        on a miss or a corrupted entry."""
        p = self.path(key)
        try:
            entry = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return None
        if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key:
            return None
        payload = entry.get("payload")
        if not isinstance(payload, dict) or entry.get("digest") != _digest(payload):
            return None
        if payload.get("status") != "verified" or not isinstance(payload.get("certificate_text"), str):
            return None
        return payload

    def put(self, key: str, payload: dict[str, Any]) -> Path:
        """Store ``payload`` atomically; returns the entry's path.

        Raises:
            ValueError: ``payload`` is not a verified result with its certificate text.
        """
        if payload.get("status") != "verified" or not isinstance(payload.get("certificate_text"), str):
            raise ValueError("only verified results with their certificate text are cached")
        entry = {"format": FORMAT, "key": key, "digest": _digest(payload), "payload": payload}
        write_text_atomic(self.path(key), json.dumps(entry, sort_keys=True))
        return self.path(key)


def _digest(payload: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
