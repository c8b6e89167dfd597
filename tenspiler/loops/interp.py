"""Concrete interpreter of the loop IR, with exact C semantics.

Arithmetic goes through :func:`tenspiler.ir.semantics.py_binop` and
:func:`~tenspiler.ir.semantics.py_cast` (the one definition shared with the verifier):
``INT`` values are unbounded Python ints (a mathematical-integer model of ``int``),
``FLOAT``/``DOUBLE`` values are Python floats. Conditions follow C: comparisons on the
(already converted) operands, ``&&``/``||`` short-circuit, and a ``Select`` evaluates only
its chosen branch, like ``?:``. It is the reference the rest of the pipeline
is tested against, so it checks what it can: array bounds, uninitialised reads, ill-typed
stores and a step budget.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any, assert_never

import numpy as np

from tenspiler.ir.semantics import OutsideInt64, py_binop, py_call, py_cast
from tenspiler.loops.ir import (
    Assign,
    Binary,
    Call,
    Cast,
    CmpOpName,
    Compare,
    Cond,
    Const,
    DType,
    Expr,
    For,
    Function,
    Load,
    Logical,
    Not,
    PointerType,
    Return,
    ScalarType,
    Select,
    Stmt,
    Store,
    Unary,
    Var,
)

__all__ = ["run_function"]

Number = int | float

_COMPARE: dict[CmpOpName, Callable[[Any, Any], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


def run_function(
    fn: Function, inputs: Mapping[str, object], max_steps: int = 1_000_000, observe: Sequence[str] = ()
) -> dict[str, object]:
    """Run ``fn`` on concrete ``inputs``.

    Args:
        fn: the kernel.
        inputs: exactly one entry per parameter: a Python/NumPy number for a scalar
            parameter (an integral value for ``INT``, ``0..255`` for ``UINT8``), and a 1-D
            array-like for a pointer parameter (integral values for ``INT``/``UINT8``
            elements). Inputs are never mutated.
        max_steps: budget of executed statements (each ``Assign``/``Store``/``Return`` and
            each ``For`` iteration counts one).
        observe: scalar variables whose final values are returned too (the values a loop
            phase hands to the next one, :mod:`tenspiler.vc.phases`).

    Returns:
        ``{"return": value or None, <array param>: final array, <observed scalar>: value,
        ...}``; arrays are copies,
        ``np.int64`` for ``INT``/``UINT8`` elements and ``np.float64`` for
        ``FLOAT``/``DOUBLE``.

    Raises:
        ValueError: missing/unknown input names or values of the wrong kind.
        IndexError: an out-of-bounds load or store (message names array and index), or
            an element outside its row (``Load.row``/``Store.row``) or plane (``Load.plane``).
        tenspiler.ir.semantics.UndefinedBehaviour: division or remainder by zero.
        StepLimitExceeded: more than ``max_steps`` statements.
        RuntimeError: a read of an unassigned local.
        OverflowError: a final ``INT`` array value does not fit in ``np.int64``.
    """
    while fn.split is not None:  # a function of two paths: the one whose condition holds
        fn = fn.split.then if _Machine(fn.split.then, inputs, max_steps).cond(fn.split.cond) else fn.split.else_
    m = _Machine(fn, inputs, max_steps)
    out = m.run()
    for name in observe:
        out[name] = m.scalars[name]
    return out


class StepLimitExceeded(RuntimeError):
    """A run executed more statements than its budget (``max_steps``)."""


class _ReturnSignal(Exception):
    def __init__(self, value: Number | None) -> None:
        self.value = value


class _Machine:
    def __init__(self, fn: Function, inputs: Mapping[str, object], max_steps: int) -> None:
        self.fn = fn
        self.max_steps = max_steps
        self.steps = 0
        names = {p.name for p in fn.params}
        missing = [p.name for p in fn.params if p.name not in inputs]
        unknown = sorted(set(inputs) - names)
        if missing or unknown:
            raise ValueError(
                f"inputs of '{fn.name}': missing {missing}, unknown {unknown}; "
                f"expected exactly {[p.name for p in fn.params]}"
            )
        self.scalars: dict[str, Number | None] = {name: None for name, _ in fn.locals}
        self.arrays: dict[str, list[Number]] = {}
        self.elem: dict[str, DType] = {}
        for p in fn.params:
            value = inputs[p.name]
            match p.type:
                case ScalarType(dtype=dtype):
                    self.scalars[p.name] = _scalar_input(p.name, value, dtype)
                case PointerType(elem=elem):
                    self.arrays[p.name] = _array_input(p.name, value, elem)
                    self.elem[p.name] = elem
                case _:
                    assert_never(p.type)

    def run(self) -> dict[str, object]:
        ret: Number | None = None
        try:
            self.block(self.fn.body)
        except _ReturnSignal as r:
            ret = r.value
        out: dict[str, object] = {"return": ret}
        for name, values in self.arrays.items():
            dtype = np.float64 if self.elem[name].is_float else np.int64
            try:
                out[name] = np.array(values, dtype=dtype)
            except OverflowError as e:
                raise OverflowError(
                    f"a final value of array '{name}' does not fit in {dtype.__name__}"
                ) from e
        return out

    # ----------------------------------------------------------- statements

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            raise StepLimitExceeded(
                f"'{self.fn.name}' exceeded the step limit of {self.max_steps} statements"
            )

    def block(self, body: tuple[Stmt, ...]) -> None:
        for s in body:
            self.stmt(s)

    def stmt(self, s: Stmt) -> None:
        match s:
            case Assign(target=target, value=value):
                self.tick()
                self._check_dtype(value, self.fn.dtype_of(target), f"assignment to '{target}'")
                self.scalars[target] = self.eval(value)
            case Store(array=array, index=index, value=value, row=row):
                self.tick()
                guard = _keeps_when(value, array, index)
                if guard is not None and not self.cond(guard):
                    return  # an if-converted store whose guard is false: C does not run it
                data = self._array(array)
                self._check_row(array, row)
                i = self._index(array, self.eval(index), len(data))
                self._check_dtype(value, self.elem[array], f"store to '{array}'")
                data[i] = self.eval(value)
            case For(var=var, start=start, stop=stop, body=body, descending=True):
                # C: for (var = stop - 1; var >= start; var--) body -- after the loop var
                # holds min(stop, start) - 1, as in C.
                lo = self.eval(start)
                self.scalars[var] = self.eval(stop) - 1
                while True:
                    self.tick()
                    counter = self.scalars[var]
                    assert counter is not None
                    if not counter >= lo:
                        break
                    self.block(body)
                    self.scalars[var] = counter - 1
            case For(var=var, start=start, stop=stop, body=body):
                # C: var = start; while (var < stop) { body; var++; } -- after the loop
                # var holds max(start, stop), as in C.
                self.scalars[var] = self.eval(start)
                while True:
                    self.tick()
                    counter = self.scalars[var]
                    assert counter is not None
                    if not counter < self.eval(stop):
                        break
                    self.block(body)
                    counter = self.scalars[var]
                    assert counter is not None
                    self.scalars[var] = counter + 1
            case Return(value=value):
                self.tick()
                if value is None:
                    raise _ReturnSignal(None)
                if self.fn.return_dtype is not None:
                    self._check_dtype(value, self.fn.return_dtype, "return value")
                raise _ReturnSignal(self.eval(value))
            case _:
                assert_never(s)

    # ----------------------------------------------------------- expressions

    def eval(self, e: Expr) -> Number:
        match e:
            case Const(value=value, dtype=dtype):
                return py_cast(value, dtype)
            case Var(name=name):
                if name not in self.scalars:
                    raise RuntimeError(f"'{name}' is not a scalar variable of '{self.fn.name}'")
                v = self.scalars[name]
                if v is None:
                    raise RuntimeError(f"read of unassigned variable '{name}'")
                return v
            case Load(array=array, index=index, row=row, plane=plane):
                data = self._array(array)
                self._check_row(array, plane)
                self._check_row(array, row)
                return data[self._index(array, self.eval(index), len(data))]
            case Unary(op="-", operand=operand):
                return -self.eval(operand)
            case Unary():
                raise AssertionError(f"unknown unary operator {e.op!r}")
            case Binary(op=op, left=left, right=right, dtype=dtype):
                v = py_binop(op, self.eval(left), self.eval(right), dtype)
                if self.fn.python is not None and not dtype.is_float and not -(2**63) <= v < 2**63:
                    # Python ints are unbounded; the generated code computes in int64, the
                    # stated assumption this input is outside of
                    raise OutsideInt64(f"the Python int {v} of '{op}' does not fit int64")
                return v
            case Cast(operand=operand, dtype=dtype):
                v = py_cast(self.eval(operand), dtype)
                if self.fn.python is not None and not dtype.is_float and not -(2**63) <= v < 2**63:
                    raise OutsideInt64(f"int() of a float gives {v}, which does not fit int64")
                return v
            case Select(cond=cond, then=then, else_=else_, dtype=dtype):
                # C's ?: evaluates only the chosen operand (the other may divide by zero).
                chosen = then if self.cond(cond) else else_
                self._check_dtype(chosen, dtype, "select branch")
                return self.eval(chosen)
            case Call(func=func, arg=arg):
                return py_call(func, self.eval(arg))
            case _:
                assert_never(e)

    def cond(self, c: Cond) -> bool:
        match c:
            case Compare(op=op, left=left, right=right):
                if left.dtype != right.dtype:
                    raise TypeError(
                        f"ill-typed IR: comparison of {left.dtype.value} with {right.dtype.value}"
                    )
                return _COMPARE[op](self.eval(left), self.eval(right))
            case Logical(op="&&", left=left_c, right=right_c):
                return self.cond(left_c) and self.cond(right_c)  # short-circuit, as C
            case Logical(op="||", left=left_c, right=right_c):
                return self.cond(left_c) or self.cond(right_c)
            case Logical():
                raise AssertionError(f"unknown logical operator {c.op!r}")
            case Not(operand=operand):
                return not self.cond(operand)
            case _:
                assert_never(c)

    def _check_row(self, array: str, row: tuple[Expr, Expr] | None) -> None:
        """An element ``v[r][c]`` of rows stored separately (``Load.row``/``Store.row``):
        C has no element outside its row, so ``c`` must lie in ``[0, cols)`` (and, for
        ``v[p][r][c]``, ``r`` in ``[0, rows)``: ``Load.plane``)."""
        if row is not None:
            col, cols = self.eval(row[0]), self.eval(row[1])
            if not 0 <= col < cols:
                raise IndexError(f"index {col} into a row of {array} out of range [0, {cols})")

    def _array(self, name: str) -> list[Number]:
        if name not in self.arrays:
            raise RuntimeError(f"'{name}' is not an array parameter of '{self.fn.name}'")
        return self.arrays[name]

    @staticmethod
    def _index(array: str, index: Number, length: int) -> int:
        if not isinstance(index, int):
            raise TypeError(f"non-integer index {index!r} into array '{array}'")
        if not 0 <= index < length:
            raise IndexError(f"index {index} out of bounds for array '{array}' of length {length}")
        return index

    @staticmethod
    def _check_dtype(value: Expr, expected: DType, what: str) -> None:
        if value.dtype != expected:
            raise TypeError(
                f"ill-typed IR: {what} has dtype {value.dtype.value}, expected {expected.value}"
            )


# ---------------------------------------------------------------- input conversion


def _scalar_input(name: str, value: object, dtype: DType) -> Number:
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.number):
        raise ValueError(f"input '{name}' must be a number, got {type(value).__name__}")
    if dtype.is_float:
        return float(value)
    return _integral(name, value, dtype)


def _integral(name: str, value: object, dtype: DType) -> int:
    if isinstance(value, float | np.floating) and not float(value).is_integer():
        raise ValueError(f"input '{name}' must be integral for dtype {dtype.value}, got {value}")
    v = int(value)  # type: ignore[call-overload]
    r = dtype.int_range
    if r is not None and not r[0] <= v <= r[1]:
        raise ValueError(f"input '{name}' must be in [{r[0]}, {r[1]}] for dtype {dtype.value}, got {v}")
    return v


def _array_input(name: str, value: object, elem: DType) -> list[Number]:
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise ValueError(f"input '{name}' must be a 1-D array, got shape {arr.shape}")
    # the common cases checked on the whole array at once (the device check's inputs hold
    # ~10^5 elements); anything else, and every error message, element by element below
    r = elem.int_range
    if arr.dtype.kind in "iu" and (r is None or arr.size == 0 or (arr.min() >= r[0] and arr.max() <= r[1])):
        ints = arr.tolist()  # Python ints
        return [float(x) for x in ints] if elem.is_float else ints
    if arr.dtype.kind == "f" and elem.is_float:
        return arr.astype(np.float64).tolist()  # Python floats, each the element's exact value
    return [_scalar_input(f"{name}[{k}]", x, elem) for k, x in enumerate(arr.tolist())]


def _keeps_when(value: Expr, array: str, index: Expr) -> Cond | None:
    """``g`` when ``value`` is ``g ? E : array[index]`` (the frontend's if-conversion of a
    guarded store): with ``g`` false the store writes back the element it read, which C
    never executes -- the index may even be out of bounds there (``if (i > 0) a[i-1] = 0``)."""
    if (
        isinstance(value, Select)
        and isinstance(value.else_, Load)
        and value.else_.array == array
        and value.else_.index == index
    ):
        return value.cond
    return None
