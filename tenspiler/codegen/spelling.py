"""How an array library spells the code of the array backends (:mod:`.array_backend`).

A :class:`Spelling` is some twenty snippet templates — an array conversion, a cast, a
reduction, a gather, an elementwise select, C's truncating integer division, a jit
compiler … — that the rules of :data:`~tenspiler.codegen.array_backend.ARRAY_RULES` and
the glue of :class:`~tenspiler.codegen.array_backend.ArrayBackend` are built from;
:func:`fill` puts operands into a template. :func:`helper_texts` gives the helper functions
of a library's generated modules: those spelled per library (``_nz``, ``_c_div``,
``_c_mod``, ``_row_max``, ``_to_numpy``, ``_jit``) are templates over the spelling; the
library-neutral ones are the functions of :mod:`tenspiler.codegen.runtime.array_runtime`,
and NumPy host code calls NumPy's (:mod:`tenspiler.codegen.runtime.numpy_runtime`,
renamed ``_np_*``), both emitted by their source. ``tests/test_runtime.py`` runs the
templated ones of every backend against :mod:`tenspiler.ir.semantics`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from tenspiler.codegen.numpy_backend import HELPERS as NUMPY_HELPERS
from tenspiler.codegen.python_host import bare, function_source
from tenspiler.codegen.runtime import array_runtime

__all__ = ["HOST_PREFIX", "PY_HELPERS", "Spelling", "fill", "helper_texts"]


@dataclass(frozen=True)
class Spelling:
    """How one array library writes the primitives the rules and the glue are made of.

    Templates are ``str.format`` strings: ``{x}``/``{y}`` operands, ``{dtype}`` a dtype
    expression (from :attr:`dtype`), ``{n}`` a length, ``{i}`` an index array, ``{shape}``
    comma-separated sizes, ``{out}``/``{lo}``/``{hi}``/``{v}`` an output update. ``where``,
    ``logical`` and ``math`` are name prefixes (``math`` is formatted with the function name).
    The helper bodies (``c_div``, ``c_mod``) are code over ``x`` and ``y`` that may call
    ``_nz(y)`` (the divisor with 0 replaced by 1); the defaults use only Python operators
    (``//`` and ``%`` floor in every supported library) and :attr:`where`. A template left
    empty gets the NumPy-like spelling in the namespace :attr:`xp` (``mx.sum({x})``).
    """

    label: str  # "PyTorch"
    package: str  # the pip package ("torch")
    extra: str  # tenspiler's extra ("torch": pip install 'tenspiler[torch]')
    imports: tuple[str, ...]  # import lines besides "import numpy as np"
    xp: str  # the library's NumPy-like namespace ("torch", "mx", "tf", "jnp")
    array_type: str  # isinstance target of a native array ("torch.Tensor")
    asarray: str  # any array-like / number / native array → native array of {dtype}
    const: str  # a Python number → 0-d native array of {dtype}
    copy: str  # a native array → a new array of {dtype} the update may write
    jit: str  # expression compiling the function f (static: integer argument names)
    device: str  # docstring: which device the code runs on
    jit_doc: str  # docstring: what <f>_jit is
    dtype: str = ""  # dtype expression from a NumPy dtype name ("{xp}.{{}}")
    bool_dtype: str = ""  # default: dtype formatted with "bool"
    cast: str = "{x}.astype({dtype})"  # native array → {dtype} (reals to ints truncate)
    sum: str = ""  # sum of all elements, in the operand's dtype
    max: str = ""  # largest element
    prod: str = ""  # product of all elements, in the operand's dtype (1 if empty)
    argmax: str | None = None  # index of the first maximal element; None: declined (NumPy host code)
    sum_rows: str = ""  # row sums of a matrix
    matmul: str = ""  # matrix product of {x} (m x k) and {y} (k x n)
    int_matmul: str = ""  # the same for integer dtypes (default: matmul)
    max_rows: str = ""  # row maxima of a non-empty matrix
    arange: str = ""  # 0 .. n-1
    iota: str = ""  # {lo} .. {hi}-1 as {dtype} (static bounds)
    full: str = ""  # {n} copies of {x} (a Python number or 0-d array of {dtype}) as {dtype}
    where: str = ""  # elementwise select function
    logical: str = ""  # prefix of logical_and / logical_or / logical_not
    math: str = ""  # unary math function from NumPy's name (exp, sqrt, log, tanh, abs)
    ones_like: str = ""
    zeros: str = ""  # a zero vector of {n} elements of {dtype}
    stack: str = ""  # a non-empty list {x} of arrays of one shape stacked along a new leading axis
    sum_axis: str = ""  # sums along the axis {axis} (a non-negative int), in the operand's dtype
    swap_last: str = ""  # the last two axes of {x} swapped (a batch of matrices transposed)
    broadcast: str = ""  # {x} broadcast to the shape ({shape})
    reshape: str = "{x}.reshape({shape})"
    transpose: str = "{x}.T"
    gather: str = "{x}[{i}]"
    fmod: str | None = None  # C fmod of reals; None: declined (NumPy host code)
    pow: str | None = None  # C pow of reals; None: declined (NumPy host code: np.power)
    # reals → uint8 as C converts them (truncated toward zero, then modulo 256), exact for
    # every finite value; None: through int64 (see ArrayBackend.narrow_float_casts)
    real_to_uint8: str | None = None
    # floor quotient, +1 when inexact and the signs differ: no abs(), which overflows on
    # the type's minimum (LONG_MIN / 3)
    c_div: str = "y = _nz(y)\nq = x // y\nreturn {where}((x % y != 0) & ((x < 0) != (y < 0)), q + 1, q)"
    c_mod: str = "y = _nz(y)\nreturn x - y * _c_div(x, y)"
    update: str = "{out}[{lo}:{hi}] = {v}"
    #: a strided output (``step >= 1``, checked first), or None: the backend declines it
    strided_update: str | None = "{out}[{lo}:{hi}:{step}] = {v}"
    #: a write at an index array ``{i}`` of the value's shape (a block of rows stored a
    #: leading dimension apart), or None: the backend declines it
    scatter: str | None = "{out}[{i}] = {v}"
    to_numpy: str = "np.asarray({x})"
    weak_scalars: bool = True  # Python ints mix with int64 arrays in where() (not so in TF)
    jit_vectors: bool = False  # <f>_jit compiles the C++-signature glue too (see _vector_entries)
    decorator: str = ""  # put before every entry ("@_x64" for JAX)
    helpers: Mapping[str, str] = field(default_factory=dict)  # extra helper functions
    notes: tuple[str, ...] = ()  # extra contract lines for the module docstring

    def __post_init__(self) -> None:
        xp = self.xp
        defaults = {
            "dtype": f"{xp}.{{}}",
            "sum": f"{xp}.sum({{x}})",
            "max": f"{xp}.max({{x}})",
            "prod": f"{xp}.prod({{x}})",
            "sum_rows": f"{xp}.sum({{x}}, axis=1)",
            "matmul": f"{xp}.matmul({{x}}, {{y}})",
            "max_rows": f"{xp}.max({{x}}, axis=1)",
            "arange": f"{xp}.arange({{n}})",
            "iota": f"{xp}.arange({{lo}}, {{hi}}, dtype={{dtype}})",
            "full": f"{xp}.full({{n}}, {{x}}, dtype={{dtype}})",
            "where": f"{xp}.where",
            "logical": f"{xp}.logical_",
            "math": f"{xp}.{{}}",
            "ones_like": f"{xp}.ones_like",
            "zeros": f"{xp}.zeros({{n}}, dtype={{dtype}})",
            "stack": f"{xp}.stack({{x}})",
            "sum_axis": f"{xp}.sum({{x}}, axis={{axis}})",
            "swap_last": f"{xp}.swapaxes({{x}}, -1, -2)",
            "broadcast": f"{xp}.broadcast_to({{x}}, ({{shape}},))",
        }
        for name, text in defaults.items():
            if not getattr(self, name):
                object.__setattr__(self, name, text)
        if not self.int_matmul:
            object.__setattr__(self, "int_matmul", self.matmul)

    @property
    def names(self) -> tuple[str, ...]:
        """The module-level names the imports bind (``import mlx.core as mx``: ``mx``)."""
        return tuple(i.split()[-1] if " as " in i else i.split()[1].split(".")[0] for i in self.imports)


def real_to_u8_helper(xp: str, cast: str) -> str:
    """The text of ``_real_to_u8(x)`` for a library whose namespace ``xp`` has ``trunc`` and
    ``floor`` and whose ``cast`` template (:attr:`Spelling.cast`) converts to uint8: C's
    conversion of reals to unsigned char as the model defines it (truncation toward zero,
    then modulo 256), for :attr:`Spelling.real_to_uint8`."""
    to_u8 = cast.format(x=f"(t - 256 * {xp}.floor(t * 0.00390625))", dtype=f"{xp}.uint8")
    return f'''def _real_to_u8(x):
    """C's conversion of reals to unsigned char (truncation toward zero, then modulo 256),
    exact for every finite value: trunc(x) - 256 * floor(trunc(x) / 256) is an integer in
    [0, 255] computed without rounding (a power-of-two scale, floor, and a difference that
    is a small integer); no conversion to int64 (x86 has no vector one before AVX-512:
    compiled, it ran ~9x slower in PyTorch, ~2x in JAX)."""
    t = {xp}.trunc(x)
    return {to_u8}'''


def fill(template: str, **values: str) -> str:
    """``template`` with ``values`` filled in. A value put before ``.`` or ``[`` (a method or
    subscript: ``{x}.to(...)``) must be an atom and keeps its parentheses; elsewhere (a call
    argument) one pair of outer parentheses is dropped."""
    return template.format(**{
        k: v if re.search(r"\{" + k + r"\}[.\[]", template) else bare(v) for k, v in values.items()
    })


#: NumPy helpers that are plain Python (scalar C division on ints): used by static ops.
PY_HELPERS = ("_c_idiv", "_c_imod")
#: Prefix of NumPy helpers called by host code (``_c_div`` → ``_np_c_div``).
HOST_PREFIX = "_np"
def helper_texts(sp: Spelling) -> dict[str, str]:
    """The device helpers of a backend, by name (emitted only when the code uses them)."""
    def body(code: str) -> str:
        return "\n".join(f"    {line}" for line in code.format(where=sp.where).split("\n"))

    jit_args = ", static" if "static" in sp.jit else ""
    texts = {
        "_nz": f'''\
def _nz(y):
    """The divisor `y` with 0 replaced by 1. A zero integer divisor is undefined behaviour in
    C (Python raises); it reaches here only in lanes a select discards."""
    return {sp.where}(y == 0, {sp.ones_like}(y), y) if isinstance(y, {sp.array_type}) else (y or 1)''',
        "_c_div": f'''\
def _c_div(x, y):
    """C integer division (C11 6.5.5), elementwise: the quotient truncated toward zero."""
{body(sp.c_div)}''',
        "_c_mod": f'''\
def _c_mod(x, y):
    """C integer remainder, elementwise: the sign of x, x == _c_div(x, y) * y + r."""
{body(sp.c_mod)}''',
        **{name: function_source(f).rstrip("\n") for name, f in array_runtime.FUNCTIONS.items()},
        "_row_max": f'''\
def _row_max(m):
    """Row maxima of a matrix; an empty matrix (without columns the precondition allows no
    rows either) gives its row sums, an empty vector."""
    return {sp.max_rows.format(x="m")} if m.shape[0] and m.shape[1] else {sp.sum_rows.format(x="m")}''',
        "_to_numpy": f'''\
def _to_numpy(x):
    """A {sp.label} value as NumPy (for host code); Python numbers pass through."""
    return {sp.to_numpy.format(x="x")} if isinstance(x, {sp.array_type}) else x''',
        "_jit": f'''\
_COMPILED = {{}}


def _jit(f{jit_args and ", static=()"}):
    """`f` compiled by `{sp.jit.split("(")[0]}`, created on first use and kept."""
    if f not in _COMPILED:
        _COMPILED[f] = {sp.jit}
    return _COMPILED[f]''',
    }
    texts.update(sp.helpers)
    for name in PY_HELPERS:
        texts[name] = NUMPY_HELPERS[name].rstrip("\n")
    pattern = re.compile(r"\b(" + "|".join(NUMPY_HELPERS) + r")\b")
    for name, text in NUMPY_HELPERS.items():
        texts[HOST_PREFIX + name] = pattern.sub(lambda m: HOST_PREFIX + m.group(1), text.rstrip("\n"))
    return texts


