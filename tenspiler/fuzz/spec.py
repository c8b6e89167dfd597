"""What a generated kernel is: C scalar types (:data:`TYPES`), the three primitive choices
every generator is written with (:class:`Draw`), and the kernel with what the oracle needs to
call it (:class:`KernelSpec`, :class:`Param`). Shared by :mod:`tenspiler.fuzz.generate`,
:mod:`tenspiler.fuzz.idioms` and :mod:`tenspiler.fuzz.oracle`."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


# --------------------------------------------------------------------------- types


@dataclass(frozen=True)
class CType:
    """A C scalar type: its spelling and machine meaning (LP64, x86-64 gcc)."""

    spelling: str
    kind: str  # "int" or "float"
    bits: int
    signed: bool = True

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def lo(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def hi(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1


_TYPES = [
    CType("int", "int", 32),
    CType("long", "int", 64),
    CType("long long", "int", 64),
    CType("short", "int", 16),
    CType("char", "int", 8),
    CType("signed char", "int", 8),
    CType("unsigned char", "int", 8, False),
    CType("unsigned", "int", 32, False),
    CType("unsigned int", "int", 32, False),
    CType("unsigned long", "int", 64, False),
    CType("unsigned short", "int", 16, False),
    CType("uint8_t", "int", 8, False),
    CType("int8_t", "int", 8),
    CType("int32_t", "int", 32),
    CType("int64_t", "int", 64),
    CType("int16_t", "int", 16),
    CType("uint16_t", "int", 16, False),
    CType("uint64_t", "int", 64, False),
    CType("uint32_t", "int", 32, False),
    CType("size_t", "int", 64, False),
    CType("float", "float", 32),
    CType("double", "float", 64),
]
TYPES: dict[str, CType] = {t.spelling: t for t in _TYPES}

def ctype(spelling: str) -> CType:
    return TYPES[spelling]


# --------------------------------------------------------------------------- draws


class Draw:
    """The three primitive choices every generator is written with."""

    def __init__(self, choose: Callable[[Sequence[Any]], Any], integer: Callable[[int, int], int]) -> None:
        self._choose = choose
        self._integer = integer

    def pick(self, options: Sequence[T]) -> T:
        return self._choose(list(options))

    def integer(self, lo: int, hi: int) -> int:
        return self._integer(lo, hi)

    def coin(self, percent: int = 50) -> bool:
        return self._integer(0, 99) < percent

    @staticmethod
    def from_random(rng: random.Random) -> Draw:
        return Draw(rng.choice, rng.randint)

    @staticmethod
    def from_hypothesis(draw: Callable[[Any], Any]) -> Draw:
        from hypothesis import strategies as st

        return Draw(lambda xs: draw(st.sampled_from(xs)), lambda lo, hi: draw(st.integers(lo, hi)))


# --------------------------------------------------------------------------- specs


@dataclass(frozen=True)
class Param:
    """A parameter of the kernel: ``extent`` is the array length as a Python expression over
    the size parameters (``"n + 1"``, ``"m * n"``); ``None`` for a scalar; ``"2d"`` (Python
    list of lists, ``"cols"`` a list as long as its rows) and ``"3d"`` (C++
    ``vector<vector<vector<T>>>`` / Python ``list[list[list[T]]]``: planes x rows x cols, the
    oracle gives every 3-D parameter of a kernel the same rectangular shape). ``size`` marks
    a loop-bound parameter (``n``, ``m``), chosen by the oracle, not drawn as data."""

    name: str
    ctype: str
    array: bool = False
    extent: str | None = None
    size: bool = False
    #: a small non-negative index (``out[j] = s;`` after a loop), chosen by the oracle in 0..3
    #: and usable in the extents of the arrays
    index: bool = False
    #: a scalar the oracle draws from these values (a runtime stride, a leading dimension, a
    #: shift count), before the arrays, so that their extents may name it
    choices: tuple[int, ...] | None = None


@dataclass
class KernelSpec:
    name: str
    language: str  # "c", "cxx" (the std::vector subset) or "python"
    source: str
    function: str
    params: list[Param]
    ret: str | None  # C type of the return value (python: "int"/"float"/"list"; cxx: the C++ type, "vector<float>")
    constants: list[float] = field(default_factory=list)
    features: list[str] = field(default_factory=list)
    shape: str = "1d"
    #: the return value is an index (argmax): compared exactly even in a float kernel
    exact_return: bool = False
    #: every output is compared exactly, floats bit for bit (up to the sign of zero): each
    #: element is one conversion and at most one float operation, rounded alike in C and in
    #: a correct translation (the ``conversion`` shape)
    exact: bool = False
    #: some cases pass a negative size (``n = -1``, ``INT_MIN``: a guard ``if (n <= 0) return;``)
    negative_sizes: bool = False
    #: the sizes the oracle draws are at least this (``do { ... } while (--n);`` without a
    #: guard: ``n >= 1`` is the caller's promise)
    min_size: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "language": self.language, "source": self.source,
            "function": self.function, "ret": self.ret, "constants": self.constants,
            "features": self.features, "shape": self.shape, "exact_return": self.exact_return, "exact": self.exact,
            "negative_sizes": self.negative_sizes, "min_size": self.min_size,
            "params": [p.__dict__ for p in self.params],
        }

    @staticmethod
    def from_json(d: dict[str, Any]) -> KernelSpec:
        return KernelSpec(
            d["name"], d["language"], d["source"], d["function"],
            [Param(**{**p, "choices": tuple(p["choices"]) if p.get("choices") is not None else None})
             for p in d["params"]],
            d["ret"], list(d.get("constants", [])), list(d.get("features", [])), d.get("shape", "1d"),
            bool(d.get("exact_return", False)), bool(d.get("exact", False)),
            bool(d.get("negative_sizes", False)), int(d.get("min_size", 0)),
        )
