"""Typed exceptions of the pipeline and the source locations they carry.

Two kinds of failure are kept apart because the CLI maps them to different exit codes
(DESIGN.md, "The user-facing contract"):

* :class:`LiftError` — bad input (syntax error, unsupported construct, unknown function):
  exit code 2, message ``file:line:col: message``.
* :class:`NotLiftable` — the input is fine, but no verified TensIR summary was found
  (op outside TensIR, search exhausted, proof failed or timed out): exit code 1.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLoc:
    """A position in user source: 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class TenspilerError(Exception):
    """Base class of every error the pipeline raises on purpose."""


class LiftError(TenspilerError):
    """Bad input: the source cannot be read as a supported kernel (CLI exit code 2).

    ``str(err)`` is ``file:line:col: message`` when a location is known.
    """

    def __init__(self, message: str, loc: SourceLoc | None = None) -> None:
        self.message = message
        self.loc = loc
        super().__init__(f"{loc}: {message}" if loc is not None else message)


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


class CodegenError(TenspilerError):
    """A verified summary uses an op the chosen backend has no rule for."""
