"""C frontend: parse a kernel with pycparser and lower it to the loop IR.

Comments are blanked (keeping every line and column) and the C preprocessor is run
(:mod:`tenspiler.frontend.preprocess`: pcpp, checked against the system ``cpp``;
``#include``/``#pragma`` lines are blanked and the standard headers' constants predefined),
so macros, ``#undef`` and conditionals mean what the compiler sees. Typedefs for ``uint8_t``,
``int8_t``, ``int32_t``, ``int64_t``, ``size_t`` and the other ``<stdint.h>`` names are prepended on one line followed by a
``# 1`` line marker, so every location is the exact ``line:col`` of the user's file.

Before lowering, the kernel and the helpers it calls are typed by C11 §6.3
(:class:`tenspiler.frontend.c_types.TypeGate`): unsigned arithmetic and value-changing
integer conversions (``long`` → ``int``), where the loop IR's integer model would differ
from C, are refused with the rule's name.

Accepted (everything else raises a located :class:`~tenspiler.errors.BadInput`):

* parameters: scalars ``int``/``long``/``signed``/``int32_t``/``int64_t`` (all
  :attr:`DType.INT`, mathematical integers: signed overflow is undefined behaviour in C;
  ``unsigned``, ``short`` and ``size_t`` are refused), ``float``, ``double``,
  ``unsigned char``/``uint8_t``; arrays ``T *p`` / ``T p[]`` of those. ``const`` and
  ``restrict`` are ignored (distinct array parameters are assumed not to alias).
* struct parameters passed by value (``typedef struct matrix { int rows, cols; int **vals;
  } matrix;``, or ``struct tag m``) whose fields are scalars of the types above or ``T **``
  with ``T`` such a scalar: flattened (see :meth:`~tenspiler.frontend.c_stmts.Kernel.struct_param` and
  :class:`~tenspiler.loops.ir.StructParam`). A scalar field ``f`` of ``m`` becomes
  the scalar parameter ``m__f`` (``m.f`` reads it); a ``T **`` field ``g`` becomes the
  pointer parameter ``m__g`` holding its rows flattened row-major plus a fresh INT
  parameter ``m__g__cols``, their length (unknown to the kernel, not assumed equal to any
  field: field names are only names). ``m.g[r][c]`` reads and writes (writes go through
  the row pointers: the caller sees them) are ``m__g[r * m__g__cols + c]`` with
  ``Load.row``/``Store.row`` = ``(c, m__g__cols)``. A ``T *`` field ``a`` becomes the
  pointer parameter ``m__a`` (``m.a[E]``, ``&m.a[E]``, ``T *p = m.a``). A struct passed
  through a pointer (``const layer *l``, fields read as ``l->f``) is flattened the same
  way, but only the fields the function names: its other fields — of any type — are
  refused only where used. Refused: arrays of
  structs, nested struct / array / bit-field fields (of a pointer struct: where used),
  ``->`` on a struct value and ``.`` on a struct pointer, assigning a
  field, a row pointer or the struct, a row ``m.g[r]`` or ``&m.g[r][c]`` as a value, struct
  locals, struct arguments and parameters of helpers, and struct parameters in C++.
* 2-D array parameters ``T A[N][M]``, ``T A[][M]``, ``T (*A)[M]`` and the C99 variable length
  array parameters ``int n, int m, T A[n][m]``: the flat pointer parameter ``A`` holding
  the rows row-major; ``A[r][c]`` is ``A[r * M + c]`` with ``Load.row``/``Store.row`` =
  ``(c, M)`` (C has no element outside its row, C11 J.2), ``M`` a constant or the entry
  value of earlier parameters (refused when the body assigns them). A row ``A[r]``, ``A``
  as a pointer, ``&A[r][c]``, three or more dimensions: refused.
* locals: scalar declarations (with or without initialiser, several declarators).
* calls of ``void`` helpers of the file as statements (``fill_cpu(n, 0, x, 1);``,
  :meth:`~tenspiler.frontend.c_stmts.Kernel.inlined_call`): inlined as the block the call
  means — a parameter the helper does not change and whose argument keeps its value
  (scalars, pointers, constants; no array element read) is the argument itself, any other
  parameter a local initialised with it — with the helper's names renamed apart; the
  body may hold loops and write through its pointer parameters. Recursion, non-``void``
  helpers, struct / 2-D array parameters and file-scope names the kernel hides at the call
  are refused.
* pointer walking (see :meth:`~tenspiler.frontend.c_stmts.Kernel.pointer_decl`): a local ``T *p`` becomes an INT local
  ``p`` holding an *offset* into one fixed array parameter, its *base*, set by ``p = A``,
  ``p = &A[E]``, ``p = A + E``, ``p = q (+ E)`` (the same array every time, element type
  ``T``). ``*p``/``p[E]``/``*(p + E)`` are ``A[p]``/``A[p + E]``; ``p++``, ``p += E``,
  ``p = p + E``, ... assign the offset; ``*p++`` / ``*++p`` read or write ``A[p]`` and
  increment ``p`` after / before the statement (C sequencing), and a statement that
  modifies a pointer twice, or reads and modifies it other than by its own ``*p++``, is
  refused as unsequenced. An array *parameter* that the body updates (``a++``, ``a += 2``)
  walks the same way with a fresh offset local ``a__off`` initialised to 0. Pointer
  comparisons and differences, pointers to pointers, pointer casts and pointers escaping
  (as numbers, helper arguments or return values) are refused.
* counted ``for`` loops ``for (i = E0; i < E1; i++)`` (also ``int i = E0``, ``i <= E1``,
  ``E1 > i``, ``E1 >= i``, ``++i``, ``i += 1``, ``i = i + 1``) with ``i`` a local int
  that the body does not assign and ``E1`` not reading anything the body writes.
* statements ``x = E``, ``a[E] = E``, compound ``op=`` for ``+ - * / %``, ``x++``/``x--``
  (also on array elements), a final ``return E;``/``return;``, empty statements, blocks,
  and ``if``/``else`` (see *if-conversion* below).
* expressions: integer and floating literals, scalar variables, ``a[E]``, unary ``-``/``+``,
  binary ``+ - * / %``, casts to the scalar types above, ``C ? E1 : E2`` (a
  :class:`~tenspiler.loops.ir.Select` whose branches are converted to their usual
  arithmetic conversion), comparisons ``< <= > >= == !=``, ``&&``, ``||`` and ``!`` (as
  values they are ``Select(cond, 1, 0)`` of type int, as in C), and calls to helper
  functions of the same file whose body only declares/assigns scalars and ends with
  ``return E;`` (inlined by substitution; a pointer parameter is bound to its argument, an
  array parameter of the caller or a pointer into it, whose elements the helper reads), e.g.
  ``static int max(int a, int b) { return a > b ? a : b; }``. ``<math.h>`` functions
  (:meth:`~tenspiler.frontend.c_inline.Unit.math_call`): ``exp expm1 sqrt log tanh cos sin
  fabs`` and their ``f`` variants (uninterpreted in proofs except ``fabs``), ``fmin``/``fmax``
  as selects, ``pow`` of an integer constant exponent in ``[0, 8]`` as a product (any other
  exponent refused); ``INFINITY``, ``NAN``, ``HUGE_VAL`` refused by name (the model is the
  reals); ``FLT_MAX`` and the other ``<float.h>`` limits are literals. ``max`` and the like
  are not C functions: refused unless defined as helpers.
* names: ``register`` locals (as any local); enumeration constants of file-scope enums (``int``
  constants) and locals of enum type (typed by the gate as GCC does: ``unsigned int`` when no
  enumerator is negative, else ``int``; enum-typed parameters too, called with that type); file-scope ``const``
  scalars and arrays with an initialiser read as constants (arrays at constant indices only);
  any other global variable refused.
* conditions (of ``if``, ``?:``, ``&&``, ``||``, ``!``): a comparison is a
  :class:`~tenspiler.loops.ir.Compare` on operands converted to their common dtype;
  any other scalar ``E`` means ``E != 0``. Pointer increments (``*p++``) in a ``?:`` branch
  or the right operand of ``&&``/``||`` (evaluated only sometimes) are refused; comparing
  pointers or using a pointer as a condition is refused.

``switch`` statements (in the kernel and in helpers) are the ``if``/``else`` chains they mean
(:mod:`~tenspiler.frontend.c_switch`: fall-through, ``default``, ``break``; what it does not
lower is refused by name where the lowering reaches it). A ``void`` helper's ``if (C) return;
R`` is ``if (C) {} else { R }``.

If-conversion: ``if (C) S1 else S2`` (``else`` optional, ``else if`` chains, nesting), whose
branches contain only assignments, stores, compound assignments, ``++``/``--``,
declarations, blocks and nested ``if`` (a loop, ``return``, ``break``, ``continue``,
``goto`` or label inside is refused: "<construct> inside if is not supported"),
becomes straight-line code (an ``if`` at the function's top level whose branches hold loops and
whose condition reads only scalar parameters and the locals the code before it computes from
them instead splits the function into one function per path,
:func:`~tenspiler.frontend.c_stmts.lower_paths` / :class:`~tenspiler.loops.ir.PathSplit`). ``C`` is evaluated once, before the branches, into a fresh INT
local ``__ifK = C ? 1 : 0`` (named to avoid the function's identifiers; listed in
``Function.locals``); every then-statement is guarded by ``__ifK != 0`` and every
else-statement by ``__ifK == 0``, conjoined (``&&``) with the guards of enclosing ``if``
statements (whose own ``__ifK`` assignment is guarded by them too). Under a guard ``g``,
``x = E`` becomes ``x = g ? E : x`` and ``a[I] = E`` becomes ``a[I] = g ? E : a[I]``
(compound assignments and pointer increments after desugaring). A ``Select`` evaluates only
its chosen branch, so ``E`` is not evaluated when ``g`` is false (``if (d) q = n / d;`` is
safe); a guarded store ``a[I] = g ? E : a[I]`` with ``g`` false writes back the element it
read, which the loop-IR interpreter skips entirely (so an ``if`` protecting an index,
``if (i > 0) a[i - 1] = 0;``, stays in bounds; in SMT the write-back is the identity on the
array). Definite assignment: a scalar is
assigned after the ``if`` only if it was before or both branches assign it. Rule for
scalars that hold no value yet: a guarded ``x = E`` with ``x`` not assigned on every path
before it and not written by an earlier guarded statement becomes ``x = g ? E : 0`` (see
:meth:`~tenspiler.frontend.common.IfConversion.guarded`), so the IR never reads an unassigned variable, and any later read
of ``x`` that could see the ``0`` is refused as "'x' may be used uninitialised".

C's usual arithmetic conversions and integer promotion are made explicit with
:class:`~tenspiler.loops.ir.Cast` nodes; conversions of literals are folded with
:func:`tenspiler.ir.semantics.py_cast`.

The lowering is split along these lines: :mod:`~tenspiler.frontend.c_parse` (comments,
preprocessing, the prelude typedefs, syntax errors), :mod:`~tenspiler.frontend.c_bindings`
(what names denote), :mod:`~tenspiler.frontend.c_decls` (declarations and types, struct
parameters), :mod:`~tenspiler.frontend.c_access` (array elements, pointers, C++ vectors,
struct fields), :mod:`~tenspiler.frontend.c_exprs` (expressions and conditions, conversions
made explicit), :mod:`~tenspiler.frontend.c_inline` (helper inlining, ``<math.h>``),
:mod:`~tenspiler.frontend.c_stmts` (statements, if-conversion, pointer walking, the returned
C++ vector) and :mod:`~tenspiler.frontend.c_loops` (counted ``for`` loops); what the Python
frontend shares is in :mod:`~tenspiler.frontend.common` (if-conversion),
:mod:`~tenspiler.frontend.lists` (vectors and the returned vector) and
:mod:`~tenspiler.frontend.counted` (counted loops).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tenspiler.frontend import CXX_SUFFIXES, read_source
from tenspiler.frontend.c_inline import Unit
from tenspiler.frontend.c_parse import parse_translation_unit
from tenspiler.frontend.c_stmts import lower_paths
from tenspiler.frontend.c_unit import Reading, build_macros, read_unit
from tenspiler.frontend.flags import NO_FLAGS, CompileFlags
from tenspiler.loops.ir import Function

__all__ = ["CXX_SUFFIXES", "parse_c_file", "parse_c_source"]

# ---------------------------------------------------------------- public API


def parse_c_file(path: str | Path, function: str | None = None, flags: CompileFlags = NO_FLAGS) -> Function:
    """Parse the C file at ``path`` and lower one of its functions to the loop IR.

    Args:
        path: a C source file (not preprocessed; see the module docstring).
        function: name of the kernel; default: the last non-``static`` function defined
            (with a body) in the file.

    Returns:
        The kernel as a :class:`~tenspiler.loops.ir.Function` whose locations name
        ``str(path)``.

    Raises:
        BadInput: unreadable file, syntax error, unknown ``function``, or any construct
            outside the accepted subset; the message is ``file:line:col: what``.
    """
    text = read_source(path)
    return parse_c_source(text, str(path), function, cxx=Path(path).suffix.lower() in CXX_SUFFIXES, flags=flags)




def parse_c_source(
    text: str, filename: str = "<string>", function: str | None = None, *, cxx: bool = False,
    flags: CompileFlags = NO_FLAGS,
) -> Function:
    """Parse C source ``text`` and lower one of its functions to the loop IR.

    Same contract as :func:`parse_c_file`; ``filename`` is only used in locations and
    messages. ``cxx``: read the C++ ``std::vector`` subset (see
    :mod:`tenspiler.frontend.cxx`); the result then has ``Function.cxx`` set. A C result's
    ``check_source`` is the part of ``text`` that ``--check`` compiles
    (:func:`tenspiler.frontend.c_unit.read_unit`).
    """
    # a leading byte-order mark is not part of the program's text (as in read_utf8)
    text = text.replace("\r\n", "\n").removeprefix("\ufeff")
    if cxx:  # the C++ subset is read whole, with the macros of the C++ build for its flags
        reading = Reading(text, macros=build_macros(text, filename, flags, cxx=True)) if flags else None
    else:
        reading = read_unit(text, filename, function, flags)
    ext, vectors = parse_translation_unit(text, filename, cxx, reading, flags)
    unit = Unit(filename, text, vectors, cxx)
    chosen = function if function is not None or reading is None else reading.kernel  # clang's choice
    fn = lower_paths(unit, unit.kernel_def(ext, chosen))
    build: dict[str, object] = {"compile_flags": tuple(flags.command_line()) + ((f"-std={flags.std}",) if flags.std else ())}
    if not cxx and reading is not None:
        build["check_source"] = reading.check_text
    return _built(fn, build)


def _built(fn: Function, build: dict[str, object]) -> Function:
    """``fn`` (and each of its paths, :class:`~tenspiler.loops.ir.PathSplit`) with the fields
    of ``build``."""
    split = fn.split
    if split is not None:
        split = replace(split, then=_built(split.then, build), else_=_built(split.else_, build))
    return replace(fn, split=split, **build)  # type: ignore[arg-type]
