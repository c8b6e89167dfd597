"""Typed exceptions of the pipeline and the source locations they carry.

The kinds of failure are kept apart because the CLI maps them to different exit codes
(DESIGN.md, "The user-facing contract") and the Python API raises one class per outcome:

* :class:`BadInput` — bad input (syntax error, unsupported construct, unknown function,
  a backend whose extra is not installed): exit code 2, message ``file:line:col: message``.
  :class:`LiftError` is its former name, kept as an alias.
* :class:`NotLiftable` — the input is fine, but no verified TensIR summary was found
  (op outside TensIR, search exhausted, a proof failed or exceeded its resource limit):
  exit code 1.
* :class:`WallClockTimeout` — a wall-clock safety net fired (status ``"timeout"``): the
  verdict is unknown, not "not lifted"; exit code 1.
* :class:`InternalError` — a bug of tenspiler's own (an exception the pipeline did not
  expect): exit code 3; never "verified".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import Any


@dataclass(frozen=True)
class SourceLoc:
    """A position in user source: 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @property
    def short(self) -> str:
        """``name:line:col`` with the file's name only (no directory): what certificates
        print, so that the same proof is the same text on every machine."""
        return f"{PurePath(self.file).name}:{self.line}:{self.col}"


class TenspilerError(Exception):
    """Base class of every error the pipeline raises on purpose.

    Attributes:
        result: the :class:`~tenspiler.pipeline.LiftResult` of the failed lift when the
            Python API raised the error (``tenspiler.lift``), else ``None``.
    """

    result: Any = None


class BadInput(TenspilerError):
    """Bad input: the source cannot be read as a supported kernel (CLI exit code 2).

    ``str(err)`` is ``file:line:col: message`` when a location is known.
    """

    def __init__(self, message: str, loc: SourceLoc | None = None) -> None:
        self.message = message
        self.loc = loc
        super().__init__(f"{loc}: {message}" if loc is not None else message)


#: The former name of :class:`BadInput`.
LiftError = BadInput


class NotLiftable(TenspilerError):
    """The kernel is well-formed but was not lifted to a verified summary (CLI exit code 1)."""

    def __init__(self, message: str, loc: SourceLoc | None = None) -> None:
        self.message = message
        self.loc = loc
        super().__init__(f"{loc}: {message}" if loc is not None else message)


class VerificationError(NotLiftable):
    """A candidate summary failed verification.

    Attributes:
        clause: name of the failing verification-condition clause (``"initiation"``,
            ``"preservation"``, ``"exit"``, ``"post"``), or ``"bounded"`` / ``"concrete"`` when a
            counterexample was found before the unbounded proof.
        counterexample: input values (parameter name → int/float or list) on which the
            source and the summary differ, when one is known; ``None`` for ``unknown`` /
            timeout answers.
    """

    def __init__(
        self,
        message: str,
        clause: str,
        counterexample: dict[str, object] | None = None,
    ) -> None:
        self.clause = clause
        self.counterexample = counterexample
        super().__init__(message)


class WallClockTimeout(TenspilerError):
    """The wall-clock safety net fired (status ``"timeout"``, CLI exit code 1).

    Every budget that decides "verified" or "not lifted" is counted in work (cvc5 resource
    units per VC clause, candidates enumerated and proofs attempted), so the same input and
    options get the same verdict on an idle and on a loaded machine. The wall-clock limits
    are only a safety net against a run that does not end: when one fires the result is
    this status of its own, never a proof failure, and it may differ between machines.
    """


class CodegenError(TenspilerError):
    """A verified summary uses an op the chosen backend has no rule for."""


class InternalError(TenspilerError):
    """An unexpected exception inside tenspiler (a bug; CLI exit code 3). The message names
    the exception; the lift is never reported verified."""


def read_utf8(path: str | PurePath) -> str:
    """The text of the file at ``path``, which must be UTF-8. A leading UTF-8 byte-order
    mark is dropped: GCC and clang skip it in C and C++ sources, and Python reads such a
    file as ``utf-8-sig`` (PEP 263), so it is not part of the program's text.

    Raises:
        BadInput: ``file: cannot read (reason)``; ``file:line:col: error: cannot decode byte
            0xNN as UTF-8``, located at the first byte that is not UTF-8 (line and column
            1-based, the column counted in bytes, as C compilers count it).
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise BadInput(f"{path}: cannot read ({err.strerror or err})") from None
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise BadInput(f"error: cannot decode byte 0x{data[err.start]:02x} as UTF-8",
                       SourceLoc(str(path), line, col)) from None
