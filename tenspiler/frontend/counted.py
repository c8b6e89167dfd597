"""Counted loops, shared by the C / C++ (:mod:`tenspiler.frontend.c_loops`) and the Python
(:mod:`tenspiler.frontend.py_stmts`) frontends.

Both recognise, in their own syntax, loops whose counter runs over an integer range fixed
when the loop starts (C ``for (i = E0; i < E1; i++)``, Python ``for i in range(E0, E1)``
and the counted ``while``) and lower them to a loop-IR :class:`~tenspiler.loops.ir.For`
``(counter, start, stop)``. What is common is kept here: the stack of the headers of the
loops around the statement being lowered (:class:`CountedLoops`, read by the trip counts
of a returned list, :meth:`tenspiler.frontend.lists.ResultLists.result_shape`), the
definite-assignment state a loop body may not leak, exclusive bounds from inclusive ones
(:func:`plus_one`) and trip counts (:func:`trip_count`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeAlias

from tenspiler.errors import SourceLoc
from tenspiler.frontend.common import DefiniteAssignment
from tenspiler.loops.ir import Binary, Compare, Const, DType, Expr, Select

__all__ = ["CountedLoops", "LoopHeader", "plus_one", "trip_count"]

#: The header of a counted loop: its counter and the bounds ``[start, stop)`` it runs over.
LoopHeader: TypeAlias = tuple[str, Expr, Expr]


def plus_one(e: Expr, loc: SourceLoc | None, *, fold_difference: bool = False) -> Expr:
    """``e + 1`` (an inclusive bound made exclusive), folded on an integer literal; with
    ``fold_difference`` also ``x - c + 1`` to ``x - (c - 1)`` (exact on the integers), so
    that ``i <= n - 1`` reads as ``i < n`` (the C frontend's choice)."""
    match e:
        case Binary("-", x, Const(c), DType.INT) if fold_difference and isinstance(c, int) and c >= 1:
            return x if c == 1 else Binary("-", x, Const(c - 1, DType.INT, loc), DType.INT, e.loc)
        case Const(c, DType.INT) if isinstance(c, int):
            return Const(c + 1, DType.INT, loc)
        case _:
            return Binary("+", e, Const(1, DType.INT, loc), DType.INT, loc)


def trip_count(start: Expr, stop: Expr, loc: SourceLoc | None) -> Expr:
    """The number of iterations of a counted loop over ``[start, stop)``:
    ``max(0, stop - start)``, as ``stop - start < 0 ? 0 : stop - start`` (``stop`` for
    ``stop - start`` when ``start`` is the literal 0)."""
    zero = Const(0, DType.INT, loc)
    diff = stop if start == zero else Binary("-", stop, start, DType.INT, loc)
    return Select(Compare("<", diff, zero, loc), zero, diff, DType.INT, loc)


class CountedLoops:
    """The loops around the statement being lowered, mixed into both frontends' ``Kernel``."""

    #: Headers of the loops around the statement being lowered, innermost last.
    loops: list[LoopHeader]

    @property
    def loop_vars(self) -> list[str]:
        """The counters of :attr:`loops`, innermost last."""
        return [var for var, _, _ in self.loops]

    @contextmanager
    def loop_body(self, header: LoopHeader, state: DefiniteAssignment) -> Iterator[None]:
        """Lower a loop body under ``header``: what the body assigns is not definitely
        assigned after the loop (it may run zero times), so ``state`` is restored."""
        before, before_written = set(state.assigned), set(state.written)
        self.loops.append(header)
        try:
            yield
        finally:
            self.loops.pop()
        state.assigned, state.written = before, before_written
