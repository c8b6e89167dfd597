"""Lists and vectors, shared by the C++ ``std::vector`` subset (:mod:`tenspiler.frontend.c`)
and the Python frontend (:mod:`tenspiler.frontend.python`), which gives Python lists the
same interface.

* A list (vector) *parameter* of rank 1, 2 or 3 is flattened: a pointer parameter holding
  its elements row-major plus INT size parameters ``a__size``, or ``m__rows`` /
  ``m__cols``, or ``t__planes`` / ``t__rows`` / ``t__cols``
  (:func:`flat_list_param`, recorded as a :class:`~tenspiler.loops.ir.VectorParam`); an
  element ``m[r][c]`` is ``m[r * m__cols + c]`` (:func:`row_index`, :func:`plane_index`).
* The *returned* list is built by appends (C++ ``push_back``, Python ``append``) in
  counted loops, never under an ``if``: it is an output pointer parameter and an INT local
  counting the elements so far (:class:`ResultList`); a row of a returned list of lists is
  a local list created in a loop body whose last statement appends it
  (:class:`ResultRow`), whose appends go straight to the result's elements. Its length (or
  rows and columns) is a sum over the append sites of products of trip counts, in terms of
  the parameters' entry values (:meth:`ResultLists.result_shape`, :func:`entry_values`),
  recorded as the :class:`~tenspiler.loops.ir.VectorResult`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tenspiler.errors import BadInput, SourceLoc
from tenspiler.frontend.common import DefiniteAssignment, KernelNames, writes
from tenspiler.frontend.counted import CountedLoops, LoopHeader, trip_count
from tenspiler.loops.ir import (
    Assign,
    Binary,
    Cast,
    Compare,
    Const,
    DType,
    Expr,
    For,
    Param,
    PointerType,
    ScalarType,
    Select,
    Stmt,
    Store,
    Unary,
    Var,
    VectorParam,
    VectorResult,
)

__all__ = [
    "SIZE_WORDS",
    "ResultList",
    "ResultLists",
    "ResultRow",
    "appended",
    "entry_values",
    "flat_list_param",
    "plane_index",
    "row_index",
]

#: The words naming the INT size parameters of a flattened list of each rank.
SIZE_WORDS: dict[int, tuple[str, ...]] = {1: ("size",), 2: ("rows", "cols"), 3: ("planes", "rows", "cols")}


# ---------------------------------------------------------------- parameters


def flat_list_param(
    name: str, rank: int, dtype: DType, elem_cxx: str, loc: SourceLoc | None, fresh: Callable[[str], str]
) -> tuple[list[Param], tuple[str, ...], VectorParam]:
    """The list parameter ``name`` of ``rank`` and element ``dtype`` (spelled ``elem_cxx``
    in C++), flattened: the pointer parameter ``name`` and the fresh INT size parameters
    (``fresh``: the kernel's fresh names), their names, and its description."""
    sizes = tuple(fresh(f"{name}__{w}") for w in SIZE_WORDS[rank])
    params = [Param(name, PointerType(dtype), loc), *(Param(n, ScalarType(DType.INT), loc) for n in sizes)]
    return params, sizes, VectorParam(name, rank, dtype, sizes, elem_cxx)


def row_index(r: Expr, c: Expr, cols: str, loc: SourceLoc | None) -> tuple[Expr, tuple[Expr, Expr]]:
    """The flat index ``r * cols + c`` of element ``[r][c]`` of rows of length ``cols`` (an
    INT parameter), and its ``row`` (``Load.row`` / ``Store.row``: ``(c, cols)``)."""
    n = Var(cols, DType.INT, loc)
    idx = Binary("+", Binary("*", r, n, DType.INT, loc), c, DType.INT, loc)
    return idx, (c, n)


def plane_index(
    p: Expr, r: Expr, c: Expr, rows: str, cols: str, loc: SourceLoc | None
) -> tuple[Expr, tuple[Expr, Expr], tuple[Expr, Expr]]:
    """The flat index ``(p * rows + r) * cols + c`` of element ``[p][r][c]`` of planes of
    ``rows`` rows of length ``cols``, its ``row`` ``(c, cols)`` and its ``plane``
    ``(r, rows)`` (``Load.row`` / ``Load.plane``)."""
    nr, nc = Var(rows, DType.INT, loc), Var(cols, DType.INT, loc)
    plane_row = Binary("+", Binary("*", p, nr, DType.INT, loc), r, DType.INT, loc)
    idx = Binary("+", Binary("*", plane_row, nc, DType.INT, loc), c, DType.INT, loc)
    return idx, (c, nc), (r, nr)


# ---------------------------------------------------------------- the returned list


@dataclass(frozen=True)
class ResultList:
    """The list the kernel returns (``rank`` 1, or 2 for a list of lists), built by
    appends: an append stores into the output pointer parameter ``array`` at index
    ``length`` (an INT local counting the elements so far) and increments ``length``."""

    name: str
    rank: int
    array: str
    length: str


@dataclass(frozen=True)
class ResultRow:
    """A local list created in a loop body whose last statement, ``last``, appends it to
    the returned list of lists ``into``: its appends go straight to the result's elements.
    ``depth`` is the number of loops around its creation."""

    name: str
    into: str
    depth: int
    last: object


def appended(result: ResultList, value: Expr, loc: SourceLoc | None) -> list[Stmt]:
    """Append ``value`` (of the element dtype) to ``result``: store it at index
    ``length``, then increment ``length``."""
    length = Var(result.length, DType.INT, loc)
    return [
        Store(result.array, length, value, loc),
        Assign(result.length, Binary("+", length, Const(1, DType.INT, loc), DType.INT, loc), loc),
    ]


def entry_values(
    body: tuple[Stmt, ...], params: set[str], loc: SourceLoc, what: str = "vector"
) -> Callable[[Expr], Expr]:
    """A rewriting of expressions (the length of the returned ``what``: vector, list) to the
    entry values of the parameters: a local assigned exactly once, by a top-level
    statement, is replaced by its value; a parameter nothing assigns stays; ``+ - *``,
    negation and casts are kept. Anything else raises a :class:`BadInput` at ``loc``."""
    counts: dict[str, int] = {}
    for name, _ in writes(body):
        counts[name] = counts.get(name, 0) + 1
    top = {s.target: s.value for s in body if isinstance(s, Assign)}
    first_loop = next((k for k, s in enumerate(body) if isinstance(s, For)), len(body))
    # a parameter assigned once, by a top-level statement before every loop (`n = int(n)`):
    # in the loops (where the appends are) it has that value, over its entry value
    before_loops = {s.target for s in body[:first_loop] if isinstance(s, Assign)}

    def rewrite(e: Expr, entry: frozenset[str] = frozenset()) -> Expr:
        match e:
            case Var(name=name):
                if name in params and (name not in counts or name in entry):
                    return e
                if name in params and name in top and counts.get(name) == 1 and name in before_loops:
                    return rewrite(top[name], entry | {name})
                if name in top and counts.get(name) == 1 and name not in params:
                    return rewrite(top[name], entry)
                raise BadInput(
                    f"the length of the returned {what} depends on '{name}', which is not fixed "
                    "when the function starts", loc,
                )
            case Const():
                return e
            case Binary(op=op, left=left, right=right, dtype=dtype) if op in ("+", "-", "*"):
                return Binary(op, rewrite(left, entry), rewrite(right, entry), dtype, e.loc)
            case Cast(operand=operand, dtype=dtype):
                return Cast(rewrite(operand, entry), dtype, e.loc)
            case Unary(op=op, operand=operand, dtype=dtype):
                return Unary(op, rewrite(operand, entry), dtype, e.loc)
            case Select(cond=Compare(op=cmp, left=cl, right=cr, loc=cloc), then=then, else_=else_, dtype=dtype):
                # min / max of lengths (Python's zip stops at the shortest list)
                return Select(Compare(cmp, rewrite(cl, entry), rewrite(cr, entry), cloc), rewrite(then, entry),
                              rewrite(else_, entry), dtype, e.loc)
        raise BadInput(f"the length of the returned {what} is not a simple expression of the parameters", loc)

    return rewrite


class ResultLists(KernelNames, CountedLoops):
    """The returned list of the kernel being lowered and its append sites, mixed into both
    frontends' ``Kernel`` (which refuse appends under an ``if`` and check the rows)."""

    #: The returned list, once its declaration (``out = []``, ``vector<T> out;``) is lowered.
    result: ResultList | None
    #: Per append of an element, the headers of the loops around it (inside the row, for
    #: the elements of a row); per append of a row, the loops around it.
    element_pushes: list[tuple[LoopHeader, ...]]
    row_pushes: list[tuple[LoopHeader, ...]]
    #: Location of the first append (where a length that cannot be computed is refused).
    push_loc: SourceLoc | None

    def init_result_lists(self) -> None:
        """No returned list and no append yet."""
        self.result = None
        self.element_pushes = []
        self.row_pushes = []
        self.push_loc = None

    def result_length(self, name: str, state: DefiniteAssignment, loc: SourceLoc | None) -> tuple[str, list[Stmt]]:
        """The fresh INT local ``name__len`` counting the elements of the returned list
        ``name`` (a kernel local, definitely assigned in ``state``) and its initialisation
        to 0."""
        length = self.fresh(f"{name}__len")
        self.locals[length] = DType.INT
        state.assigned.add(length)
        return length, [Assign(length, Const(0, DType.INT, loc), loc)]

    def push_element(
        self, site: ResultList | ResultRow, into: ResultList, value: Expr, loc: SourceLoc | None
    ) -> list[Stmt]:
        """An append of ``value`` (converted to the element dtype) to ``site``: the
        returned list ``into`` itself or one of its rows."""
        self.push_loc = self.push_loc or loc
        loops = self.loops[site.depth :] if isinstance(site, ResultRow) else self.loops
        self.element_pushes.append(tuple(loops))
        return appended(into, value, loc)

    def push_row(self, loc: SourceLoc | None) -> None:
        """An append of a row (:class:`ResultRow`) to the returned list of lists."""
        self.push_loc = self.push_loc or loc
        self.row_pushes.append(tuple(self.loops))

    @staticmethod
    def is_row_push(into: ResultList, row: object, stmt: object) -> bool:
        """Whether the statement ``stmt`` appending the list bound to ``row`` to ``into`` is
        the one its :class:`ResultRow` was created for."""
        return isinstance(row, ResultRow) and row.into == into.name and row.last is stmt

    def result_shape(
        self, body: tuple[Stmt, ...], params: tuple[Param, ...], fallback: SourceLoc, what: str
    ) -> tuple[Expr, ...]:
        """Length (or rows and columns) of the returned ``what`` (vector, list): per append
        site the product of the trip counts ``max(0, stop - start)`` of the loops around it
        (inside the row, for the elements of a row), summed over the sites; loop bounds are
        rewritten to the entry values of the parameters (locals assigned once at the top of
        the body are substituted). Refusals are located at the first append, else at
        ``fallback``."""
        assert self.result is not None
        loc = self.push_loc or fallback
        entry = entry_values(body, {p.name for p in params}, loc, what)
        zero, one = Const(0, DType.INT, loc), Const(1, DType.INT, loc)

        def count(sites: list[tuple[LoopHeader, ...]]) -> Expr:
            total: Expr = zero
            for stack in sites:
                prod: Expr = one
                for _, start, stop in stack:
                    trips = trip_count(entry(start), entry(stop), loc)
                    prod = trips if prod == one else Binary("*", prod, trips, DType.INT, loc)
                total = prod if total == zero else Binary("+", total, prod, DType.INT, loc)
            return total

        if self.result.rank == 1:
            return (count(self.element_pushes),)
        return (count(self.row_pushes), count(self.element_pushes))

    def result_interface(
        self,
        params: list[Param],
        body: list[Stmt],
        dtype: DType,
        elem_cxx: str,
        loc: SourceLoc | None,
        fallback: SourceLoc,
        what: str,
    ) -> VectorResult:
        """Add the output pointer parameter of the returned list (elements of ``dtype``,
        spelled ``elem_cxx`` in C++; at ``loc``) to ``params`` and describe the list (its
        shape: :meth:`result_shape`)."""
        r = self.result
        assert r is not None
        params.append(Param(r.array, PointerType(dtype), loc))
        shape = self.result_shape(tuple(body), tuple(params), fallback, what)
        return VectorResult(r.array, r.rank, dtype, shape, elem_cxx)
