"""The C++ ``std::vector`` subset: a position-preserving token rewrite in front of pycparser.

The blend and Llama kernels of the paper (§10) are written in a small C++ subset: C plus
``#include <vector>`` / ``<cmath>`` / ``<cstdint>``, ``using namespace std;``, ``std::``
prefixes, ``vector<T>``, ``vector<vector<T>>`` and ``vector<vector<vector<T>>>`` (rectangular;
parameters only) parameters, locals and return types
(``const`` and ``&`` allowed on parameters), ``.size()``, ``.push_back(E)`` and ``[]``.
Everything else of C++ is refused, by pycparser's syntax errors or by the C lowering.

:func:`rewrite_cxx` turns that subset into C that pycparser reads, keeping every line and
column: ``using namespace std;`` and ``std::`` become spaces; ``vector<vector<vector<T>>>``
becomes the typedef name ``__vec3_T``, ``vector<vector<T>>`` ``__vec2_T`` and ``vector<T>``
``__vec1_T`` (padded with spaces to the
original width); a ``&`` after such a type becomes a space (a ``const`` reference to a
vector reads like the vector itself; the kernel may not write its parameters). The
typedef names are declared, as incomplete struct types, in a prelude line;
:mod:`tenspiler.frontend.c` gives them their meaning (``c_bindings.Vector`` bindings, see
``c_stmts.Kernel.vector_decl``).

Element types: ``float``, ``double``, ``int``/``int32_t``, ``uint8_t``
(:data:`VECTOR_ELEMENTS`); others are refused with a located message.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from tenspiler.errors import BadInput, SourceLoc
from tenspiler.loops.ir import DType

__all__ = ["VECTOR_ELEMENTS", "VectorType", "rewrite_cxx"]

#: C++ element types a vector may hold, and their dtypes.
VECTOR_ELEMENTS: dict[str, DType] = {
    "float": DType.FLOAT,
    "double": DType.DOUBLE,
    "int": DType.INT,
    "int32_t": DType.INT,
    "uint8_t": DType.UINT8,
}


@dataclass(frozen=True)
class VectorType:
    """``vector<elem>`` (``rank == 1``), ``vector<vector<elem>>`` (``rank == 2``) or
    ``vector<vector<vector<elem>>>`` (``rank == 3``); ``elem`` is the C++ spelling of the
    element type."""

    rank: int
    elem: str

    @property
    def dtype(self) -> DType:
        return VECTOR_ELEMENTS[self.elem]

    @property
    def typedef(self) -> str:
        return f"__vec{self.rank}_{self.elem}"

    @property
    def spelled(self) -> str:
        return "vector<" * self.rank + self.elem + ">" * self.rank


_SP = r"[ \t]*"
_STD = rf"(?:std{_SP}::{_SP})?"
_VECTOR3_RE = re.compile(
    rf"\b{_STD}vector{_SP}<{_SP}{_STD}vector{_SP}<{_SP}{_STD}vector{_SP}<{_SP}(\w+){_SP}>{_SP}>{_SP}>"
)
_VECTOR2_RE = re.compile(
    rf"\b{_STD}vector{_SP}<{_SP}{_STD}vector{_SP}<{_SP}(\w+){_SP}>{_SP}>"
)
_VECTOR1_RE = re.compile(rf"\b{_STD}vector{_SP}<{_SP}(\w+){_SP}>")
_VECTOR_WORD_RE = re.compile(r"\bvector\b")
_USING_RE = re.compile(rf"\busing{_SP}namespace{_SP}std{_SP};")
_STD_PREFIX_RE = re.compile(rf"\bstd{_SP}::")
_REF_RE = re.compile(rf"\b(__vec[123]_\w+{_SP}(?:const{_SP})?)&")


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


def rewrite_cxx(text: str, filename: str) -> tuple[str, dict[str, VectorType]]:
    """Rewrite the C++ subset in ``text`` (comments and directives already blanked).

    Returns the C text (same lines and columns) and the vector typedef names it uses.

    Raises:
        BadInput: a vector of an unsupported element type, or ``vector`` used otherwise
            than as ``vector<T>`` / ``vector<vector<T>>`` / ``vector<vector<vector<T>>>``.
    """
    used: dict[str, VectorType] = {}

    def loc(pos: int) -> SourceLoc:
        line = text.count("\n", 0, pos) + 1
        return SourceLoc(filename, line, pos - (text.rfind("\n", 0, pos) + 1) + 1)

    def vector(rank: int) -> Callable[[re.Match[str]], str]:
        def sub(m: re.Match[str]) -> str:
            elem = m.group(1)
            if elem not in VECTOR_ELEMENTS:
                known = ", ".join(VECTOR_ELEMENTS)
                raise BadInput(
                    f"vector of '{elem}' is not supported (element types: {known})",
                    loc(m.start(1)),
                )
            vt = VectorType(rank, elem)
            used[vt.typedef] = vt
            return vt.typedef.ljust(len(m.group(0)))

        return sub

    text = _USING_RE.sub(_blank, text)
    text = _VECTOR3_RE.sub(vector(3), text)
    text = _VECTOR2_RE.sub(vector(2), text)
    text = _VECTOR1_RE.sub(vector(1), text)
    stray = _VECTOR_WORD_RE.search(text)
    if stray is not None:
        raise BadInput(
            "'vector' is only supported as vector<T>, vector<vector<T>> or vector<vector<vector<T>>> "
            f"(T one of {', '.join(VECTOR_ELEMENTS)})",
            loc(stray.start()),
        )
    text = _STD_PREFIX_RE.sub(_blank, text)
    text = _REF_RE.sub(lambda m: m.group(1) + " ", text)
    return text, used


def prelude(used: dict[str, VectorType]) -> tuple[str, int]:
    """Typedef declarations for the vector names (one line) and how many there are."""
    names = sorted(used)
    return " ".join(f"typedef struct __tenspiler_vector {n};" for n in names), len(names)
