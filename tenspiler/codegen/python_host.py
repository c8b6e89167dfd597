"""The neutral base of the Python-hosted backends (NumPy and the array libraries).

A Python-hosted backend generates one Python module per kernel. What every such backend
shares lives here, with the dialect-specific parts as methods a dialect overrides (as a
C-like renderer overrides a neutral one):

* :class:`PythonHostBackend`: parameter renaming and validation, the proof's precondition
  guards (trip counts, shapes, every view inside its array), the function docstring, the
  parameter conversions, the shared loop over the outputs; a dialect supplies
  :meth:`~PythonHostBackend.render` (a term as an expression), the output statements
  (:meth:`~PythonHostBackend._emit_output`), the module (``generate``, its docstring) and the
  array spellings of the glue (:meth:`~PythonHostBackend._asarray_text` …);
* :func:`cxx_adapter`: the entry with the C++ / Python signature of a kernel, spelled with a
  dialect's glue methods;
* :class:`EmitContext`, the dtype tables :data:`REPR` / :data:`STORED` and small text
  helpers (:func:`bare`, :func:`indent`, :func:`fresh_name`, :func:`function_source` …).

The dialects are :mod:`tenspiler.codegen.numpy_backend` and
:mod:`tenspiler.codegen.array_backend` (PyTorch, MLX, TensorFlow, JAX); the TPC-C host part
(:mod:`tenspiler.codegen.tpc_c.host`) reuses NumPy's.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import keyword
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, assert_never

from tenspiler.codegen.base import GeneratedCode, missing_ops, no_rule_error, operands, output_term
from tenspiler.codegen.preconditions import Precondition, proof_preconditions
from tenspiler.codegen.raises import RaiseCheck, raise_checks, row_read_checks
from tenspiler.codegen.ranges import INT_DTYPES, DtypePlan, min_max
from tenspiler.errors import CodegenError
from tenspiler.frontend.c_types import MAX_VECTOR_SIZE
from tenspiler.ir.printer import show, show_output
from tenspiler.ir.terms import (
    ArrayOutput,
    Cmp,
    Full,
    Iota,
    Lit,
    MatMul,
    Matrix,
    Output,
    ProgramSummary,
    ScalarCast,
    ScalarOp,
    ScalarSelect,
    ScalarVar,
    Slice,
    Stack,
    Strided,
    Tail,
    Take,
    TensorCast,
    TensorScalar,
    TensorTensor,
    TensorVar,
    Term,
    children,
    cols,
    free_vars,
    is_tensor,
    length,
    rank,
    rows,
    substitute,
)
from tenspiler.ir.terms import cols as term_cols
from tenspiler.ir.terms import rows as term_rows
from tenspiler.loops.ir import ArgGuard, DType, Function, PointerType, ScalarType, map_expr
from tenspiler.loops.ir import Binary as LBinary
from tenspiler.loops.ir import Call as LCall
from tenspiler.loops.ir import Cast as LCast
from tenspiler.loops.ir import Compare as LCompare
from tenspiler.loops.ir import Cond as LCond
from tenspiler.loops.ir import Const as LConst
from tenspiler.loops.ir import Expr as LExpr
from tenspiler.loops.ir import Logical as LLogical
from tenspiler.loops.ir import Not as LNot
from tenspiler.loops.ir import Select as LSelect
from tenspiler.loops.ir import Unary as LUnary
from tenspiler.loops.ir import Var as LVar

__all__ = [
    "REPR",
    "STORED",
    "EmitContext",
    "OutputCode",
    "PythonHostBackend",
    "bare",
    "cxx_adapter",
    "fresh_name",
    "function_source",
    "indent",
    "min_max",
    "output_vars",
    "param_dtype",
    "render_loop_expr",
]

#: NumPy dtype name that values of each DType are computed in (all integers in int64: the
#: representation without range analysis).
REPR: dict[DType, str] = {
    DType.INT: "int64",
    DType.UINT8: "int64",
    DType.FLOAT: "float32",
    DType.DOUBLE: "float64",
    DType.INT8: "int64",
    DType.INT16: "int64",
    DType.UINT16: "int64",
    DType.UINT32: "int64",
}

#: NumPy dtype name of a returned array whose C element type is the key.
STORED: dict[DType, str] = {
    DType.INT: "int64",
    DType.UINT8: "uint8",
    DType.FLOAT: "float32",
    DType.DOUBLE: "float64",
    DType.INT8: "int8",
    DType.INT16: "int16",
    DType.UINT16: "uint16",
    DType.UINT32: "uint32",
}


@dataclass
class EmitContext:
    """What rules need besides the term: parameter names and types; helpers used so far.

    Attributes:
        names: C parameter name → Python name in the generated function.
        param_dtypes: C parameter name → its scalar dtype or pointer element dtype.
        helpers: helper functions the emitted code calls (filled in by the rules).
        plan: the dtype each node is computed in (:class:`~tenspiler.codegen.ranges.DtypePlan`);
            ``None``: every integer in int64, reals in their C type (:data:`REPR`).
    """

    names: Mapping[str, str]
    param_dtypes: Mapping[str, DType]
    helpers: set[str] = field(default_factory=set)
    plan: DtypePlan | None = None
    #: common subexpressions of the output being rendered (``NumpyBackend._repeated``)
    #: and the names bound to those already computed, in evaluation order
    cse_candidates: set[Term] = field(default_factory=set)
    cse: dict[Term, str] = field(default_factory=dict)
    taken: set[str] = field(default_factory=set)
    #: > 0 while rendering the branches of an elementwise select (both branches run, so a
    #: Python-int division there must not raise on a zero divisor of a discarded branch)
    both_branches: int = 0
    #: module-level constants (their text → name), when the dialect hoists literals out of
    #: the function (``None``: literals are spelled inline)
    constants: dict[str, str] | None = None
    #: a Python kernel's ``cast(a, double) / cast(b, double)`` of ints: ``"exact"`` is
    #: Python's ``a / b`` (the exact quotient rounded once), ``"ambiguous"`` when the kernel
    #: also has ``float(a)`` (refused), ``""`` a plain real division
    #: (:func:`int_division_mode`, :func:`exact_quotient_operands`)
    int_division: str = ""

    def use(self, helper: str) -> str:
        self.helpers.add(helper)
        return helper

    def rep(self, t: Term) -> str:
        """The NumPy dtype name ``t`` is computed in."""
        return REPR[t.dtype] if self.plan is None else self.plan.rep(t)

    def narrow(self) -> bool:
        """Whether integer nodes get range-analysed dtypes (else all int64)."""
        return self.plan is not None and bool(self.plan.candidates)

    def stack_index_name(self, var: str, taken: set[str]) -> str:
        """A fresh Python name (not in ``taken``, then taken) for the index variable ``var``
        of a ``stack``."""
        py = fresh_name("_" + "".join(ch if ch.isalnum() else "_" for ch in var.removeprefix("$s:")), taken)
        self.taken.add(py)
        return py

    @contextlib.contextmanager
    def stack_index(self, var: str, py: str) -> Iterator[None]:
        """While the body of a ``stack`` is rendered: its index variable ``var`` is the
        Python name ``py``, an exact Python int in the body's arithmetic (the plan's ranges
        recomputed for the body)."""
        saved = self.names, self.param_dtypes, self.plan
        self.names = {**self.names, var: py}
        self.param_dtypes = {**self.param_dtypes, var: DType.INT}
        if self.plan is not None:
            self.plan = replace(self.plan, param_dtypes={**self.plan.param_dtypes, var: DType.INT},
                                param_reps={**self.plan.param_reps, var: "int64"}, _ranges={}, _reps={},
                                _c_ranges={})
        try:
            yield
        finally:
            self.names, self.param_dtypes, self.plan = saved


def python_raises(fn: Function, outputs: Sequence[Output], ctx: EmitContext) -> list[RaiseCheck]:
    """Where a Python kernel raises (:func:`tenspiler.codegen.raises.raise_checks`); none
    for C and C++ kernels, where those inputs are undefined behaviour or IEEE values."""
    if fn.python is None:
        return []
    sites = raise_checks(outputs, fn, exact_quotient=ctx.int_division == "exact")
    rows = row_read_checks(fn) or []
    others = sorted({r.exception for r in sites} - {"IndexError"})
    if rows and others:
        raise CodegenError(
            f"the Python kernel may raise IndexError (a list of lists read beyond a row) or {' or '.join(others)}: "
            "which one Python raises first depends on the order of its loops, which the summary does not keep"
        )
    return rows + sites


def int_division_mode(fn: Function) -> str:
    """:attr:`EmitContext.int_division` for ``fn`` (see ``loops.ir.PythonInterface``)."""
    py = fn.python
    if py is None or not py.int_true_division:
        return ""
    return "ambiguous" if py.float_of_int else "exact"


def exact_quotient_operands(t: Term, ctx: EmitContext) -> tuple[Term, Term] | None:
    """The integer operands ``a``, ``b`` of ``t = cast(a, double) / cast(b, double)`` when
    ``t`` is a Python ``a / b`` of ints (:attr:`EmitContext.int_division`), which must be the
    exact quotient rounded once (PEP 238): NumPy's float64 division of the converted
    operands rounds three times (each operand beyond 2**53, then the quotient).

    Raises:
        CodegenError: the kernel also converts ints with ``float()``, so the summary's
            division may stand for either rounding.
    """
    if not ctx.int_division or not isinstance(t, ScalarOp | TensorTensor | TensorScalar):
        return None
    if t.op != "/" or t.dtype != DType.DOUBLE:
        return None
    inner = []
    for u in operands(t):
        if not isinstance(u, ScalarCast | TensorCast):
            return None
        x = u.scalar if isinstance(u, ScalarCast) else u.tensor
        if x.dtype.is_float:
            return None
        inner.append(x)
    if ctx.int_division == "ambiguous":
        raise CodegenError(
            "the Python kernel divides ints with '/' (the exact quotient rounded once) and also "
            "converts ints with float() (rounded before dividing): the summary's "
            f"'{show(t)}' may stand for either, which differ beyond 2**53"
        )
    return inner[0], inner[1]


# ---------------------------------------------------------------- text helpers


def bare(expr: str) -> str:
    """``expr`` without one pair of outer parentheses, when they enclose all of it — except
    around a conditional expression (``(a if c else b)``), which binds looser than any
    operator it may be put next to."""
    if not (expr.startswith("(") and expr.endswith(")")):
        return expr
    depth = 0
    conditional = False
    for i, ch in enumerate(expr):
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(ch, 0)
        if depth == 0 and i < len(expr) - 1:
            return expr
        # a conditional or an assignment expression (``(v := x)``) keeps its parentheses
        conditional = conditional or (depth == 1 and expr.startswith((" if ", " := "), i))
    return expr if conditional else expr[1:-1]


def indent(block: str) -> str:
    """``block`` indented by four spaces (empty lines stay empty)."""
    return "\n".join(f"    {line}" if line else "" for line in block.split("\n"))


def fresh_name(base: str, taken: set[str]) -> str:
    """``base``, with trailing underscores until it is neither in ``taken`` nor a Python
    keyword; added to ``taken``."""
    name = base
    while name in taken or keyword.iskeyword(name):
        name += "_"
    taken.add(name)
    return name


def function_source(fn: Callable[..., Any]) -> str:
    """The source of the module-level function ``fn`` as generated code contains it: its
    own text (docstring, comments and layout kept), with the annotations of its signature
    dropped, so that the code needs no typing import. Ends with a newline.

    Raises:
        ValueError: ``fn`` is decorated, nested or its body starts on its ``def`` line.
    """
    text = inspect.getsource(fn)
    node = None if text[0].isspace() else ast.parse(text).body[0]
    if not isinstance(node, ast.FunctionDef) or node.decorator_list:
        raise ValueError(f"{fn.__name__}: not a plain module-level function")
    lines = text.splitlines(keepends=True)
    first = node.body[0].lineno  # 1-based, in ``text``
    if first == node.lineno:
        raise ValueError(f"{fn.__name__}: its body starts on the def line")
    args = node.args
    for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if a is not None:
            a.annotation = None
    return f"def {node.name}({ast.unparse(args)}):\n" + "".join(lines[first - 1 :])


# ---------------------------------------------------------------- small analyses


def param_dtype(fn: Function, name: str) -> DType:
    """The C type of the scalar parameter ``name``, or the element type of the pointer."""
    t = fn.param(name).type
    match t:
        case PointerType(elem):
            return elem
        case ScalarType(dtype):
            return dtype
        case _:
            assert_never(t)


def output_vars(o: Output) -> set[str]:
    """The parameters an output reads (its array, its bounds, its value)."""
    if isinstance(o, ArrayOutput):
        return {o.array} | free_vars(o.lo) | free_vars(o.hi) | free_vars(o.value) | (
            free_vars(o.step) if o.step is not None else set())
    return free_vars(o.value)


def stack_is_affine(t: Stack) -> bool:
    """Whether every index of a view in ``t``'s body (offsets, lengths, strides) is affine in
    its bound variable: built from it by sums and by products with terms free of it. A view
    then lies inside its array for every row if it does for the first and the last row,
    which the guards check (:meth:`PythonHostBackend.guards`)."""
    var = t.var

    def affine(e: Term) -> bool:
        if var not in free_vars(e):
            return True
        match e:
            case ScalarVar():
                return True
            case ScalarOp("+" | "-", a, b):
                return affine(a) and affine(b)
            case ScalarOp("*", a, b):
                return (var not in free_vars(a) and affine(b)) or (var not in free_vars(b) and affine(a))
        return False

    def ok(u: Term) -> bool:
        match u:
            case Take(_, n) | Tail(_, n) | Full(n, _):
                index: tuple[Term, ...] = (n,)
            case Slice(_, lo, hi):
                index = (lo, hi)
            case Matrix(_, nr, nc, stride):
                index = (nr, nc) if stride is None else (nr, nc, stride)
            case Strided(_, a0, n, step):
                index = (a0, n, step)
            case Iota(a, b):
                index = (a, b)
            case Stack(_, n, _):
                index = (n,)
            case _:
                index = ()
        return all(affine(e) for e in index) and all(ok(c) for c in children(u))

    return ok(t.body)


# ---------------------------------------------------------------- the base backend


@dataclass
class OutputCode:
    """The statements computing a kernel's outputs (:meth:`PythonHostBackend._outputs`)."""

    statements: list[str]  # per output: its statements, joined by newlines
    results: list[str]  # per output: the name holding its value
    returns_doc: list[str]  # per output: its line of the docstring's "Returns"
    used: set[str]  # the parameters the outputs and the preconditions read
    preconditions: list[Precondition]  # the proof's (trip counts, shapes)


class PythonHostBackend:
    """The neutral base of the backends that generate a Python module (see the module
    docstring). A dialect sets :attr:`name`, :attr:`rules` and :attr:`int_dtypes` and
    implements :meth:`render`, :meth:`_emit_output`, :meth:`generate`, :meth:`_module_names`
    and the glue spellings (:meth:`_asarray_text`, :meth:`_real_param_text`,
    :meth:`_zeros_text`, :meth:`_reshape_text`, :meth:`_array_doc`)."""

    name = "python_host"
    #: One rule per :func:`~tenspiler.codegen.base.op_key`: the snippet of a node from its
    #: rendered operands (``None``: declined, where the dialect has somewhere else to go).
    rules: ClassVar[Mapping[str, Callable[..., str | None]]] = {}
    #: Integer dtypes generated code computes in, narrowest first (:mod:`.ranges`); empty:
    #: every integer in int64 and ``unsigned char`` arrays converted to int64 on entry.
    int_dtypes: ClassVar[tuple[str, ...]] = tuple(INT_DTYPES)
    #: Whether an elementwise select may be narrower than its branches
    #: (:attr:`~tenspiler.codegen.ranges.DtypePlan.repack_selects`): its rule converts them.
    repack_selects: ClassVar[bool] = False
    #: Whether a tensor conversion of reals to ``unsigned char`` is planned in uint8
    #: (:attr:`~tenspiler.codegen.ranges.DtypePlan.narrow_float_casts`): its rule wraps it.
    narrow_float_casts: ClassVar[bool] = False

    # ------------------------------------------------------------ dtypes

    def param_repr(self, elem: DType) -> str:
        """The dtype a parameter (a pointer's elements) of C type ``elem`` arrives in: its
        stored type when integers are range-analysed (``unsigned char`` stays uint8)."""
        return STORED[elem] if self.int_dtypes else REPR[elem]

    def plan(self, fn: Function) -> DtypePlan:
        """The dtype plan of ``fn``'s summary (:class:`~tenspiler.codegen.ranges.DtypePlan`)."""
        return DtypePlan.for_function(fn, self.int_dtypes, {d: self.param_repr(d) for d in DType}, self.repack_selects,
                                      self.narrow_float_casts)

    def _int_param_text(self, fn: Function, dtype: DType, py: str) -> str:
        """An integer scalar parameter as an exact Python int: ``unsigned char`` wraps modulo
        256 (C's conversion at the call) when the range analysis relies on [0, 255]."""
        if dtype == DType.UINT8 and self.int_dtypes:
            return f"int({py}) % 256"
        if (r := dtype.int_range) is not None and dtype != DType.UINT8:
            return f"(((int({py}) - {r[0]}) & {r[1] - r[0]}) + {r[0]})"  # C's conversion at the call
        return f"int({py})"

    def supports(self, term: Term) -> bool:
        return not missing_ops(term, self.rules)

    # ------------------------------------------------------------ the dialect's part

    def generate(self, fn: Function, ps: ProgramSummary) -> GeneratedCode:
        """The module computing the :func:`~tenspiler.codegen.base.returned_outputs` of
        ``ps`` for ``fn`` (:class:`~tenspiler.codegen.base.Backend`)."""
        raise NotImplementedError

    def render(self, t: Term, ctx: EmitContext) -> str:
        """A Python expression computing ``t``.

        Raises:
            CodegenError: some op of ``t`` has no rule (the message names it).
        """
        raise NotImplementedError

    def _emit_output(self, fn: Function, o: Output, ctx: EmitContext, taken: set[str]) -> tuple[list[str], str, str]:
        """Statements computing ``o``, the name holding its result, its docstring line."""
        raise NotImplementedError

    def _module_names(self) -> set[str]:
        """The names the generated module defines or uses besides the kernel's functions
        (imports, helpers, builtins): no parameter and no function may take one."""
        raise NotImplementedError

    def _asarray_text(self, x: str, dtype: DType) -> str:
        """``x`` (array-like) as an array of the dtype a ``dtype`` parameter arrives in."""
        raise NotImplementedError

    def _real_param_text(self, x: str, dtype: DType) -> str:
        """The real scalar parameter ``x`` of C type ``dtype`` in its computation type."""
        raise NotImplementedError

    def _zeros_text(self, n: str, dtype: DType) -> str:
        """A zero array of ``n`` elements of ``dtype``'s stored type."""
        raise NotImplementedError

    def _reshape_text(self, x: str, shape: str) -> str:
        raise NotImplementedError

    def _array_doc(self, dtype: DType) -> str:
        """How the docstrings name an array of ``dtype``'s stored type."""
        raise NotImplementedError

    # ------------------------------------------------------------ the shared glue

    def _validate(self, fn: Function, ps: ProgramSummary, outputs: Sequence[Output]) -> None:
        if ps.function != fn.name:
            raise CodegenError(f"summary of {ps.function!r} given for function {fn.name!r}")
        if keyword.iskeyword(fn.name) or fn.name in self._module_names():
            raise CodegenError(f"function name {fn.name!r} cannot name the generated {self.name} function")
        kinds = {p.name: isinstance(p.type, PointerType) for p in fn.params}
        seen: set[str] = set()
        for o in outputs:
            terms: list[Term] = [output_term(o)]
            if isinstance(o, ArrayOutput):
                if not kinds.get(o.array, False):
                    raise CodegenError(
                        f"output {show_output(o)}: {o.array!r} is not a pointer parameter of {fn.name}"
                    )
                if o.array in seen:
                    raise CodegenError(f"two outputs for array {o.array!r} in {ps.function}")
                seen.add(o.array)
                terms += [o.lo, o.hi] + ([o.step] if o.step is not None else [])
            elif fn.return_dtype is None:
                raise CodegenError(f"output {show_output(o)}: {fn.name} returns void")
            for t in terms:
                self._check_rules(t)
                _check_vars(fn, o, t, kinds)

    def _check_rules(self, t: Term) -> None:
        """Raise the :func:`no_rule_error` when some op of ``t`` has no rule (a subclass that
        can compute such ops elsewhere, e.g. in host code, overrides this)."""
        if missing_ops(t, self.rules):
            raise no_rule_error(self.name, t, self.rules)

    def _outputs(
        self, fn: Function, ps: ProgramSummary, outputs: Sequence[Output], ctx: EmitContext, taken: set[str]
    ) -> OutputCode:
        """Each output's statements (:meth:`_emit_output`), and what they read."""
        code = OutputCode([], [], [], set(), [])
        for o in outputs:
            code.used |= output_vars(o)
            stmts, result, doc = self._emit_output(fn, o, ctx, taken)
            code.statements.append("\n".join(stmts))
            code.results.append(result)
            code.returns_doc.append(doc)
        code.preconditions = list(proof_preconditions(fn, ps))
        for pre in code.preconditions:
            code.used |= pre.names
        return code

    def _convert_param(self, fn: Function, name: str, py: str) -> str:
        """The statement converting the argument ``py`` of parameter ``name`` on entry."""
        p = fn.param(name)
        match p.type:
            case PointerType(elem):
                return f"{py} = {self._asarray_text(py, elem)}"
            case ScalarType(dtype):
                if dtype.is_float:
                    return f"{py} = {self._real_param_text(py, dtype)}"
                return f"{py} = {self._int_param_text(fn, dtype, py)}"
            case _:
                assert_never(p.type)

    def _matmul_nonempty(self, t: MatMul, ctx: EmitContext) -> str:
        """``m > 0 and n > 0`` for the ``m x n`` product ``t`` (rendered)."""
        nr, nc = (bare(self.render(e, ctx)) for e in (term_rows(t), term_cols(t)))
        return f"({nr}) > 0 and ({nc}) > 0"

    def guards(
        self,
        outputs: Sequence[Output],
        ctx: EmitContext,
        preconditions: Sequence[Precondition] = (),
        ranges: bool = True,
        fn: Function | None = None,
    ) -> list[str]:
        """Checks of the proof's preconditions (:mod:`tenspiler.codegen.preconditions`): first
        ``preconditions`` (the loops' trip counts, each literally, then the summary's shape
        preconditions ``a == b``), then — with ``ranges`` — the ranges: every take/tail/slice
        of a parameter array, every matrix view and every output range lies inside the
        array (NumPy would otherwise wrap negative bounds or clip long ones silently); last,
        for the Python kernel ``fn``, the exceptions it raises (:func:`python_raises`,
        :meth:`raise_lines`). A violated precondition raises ``ValueError``, a range
        ``ValueError`` too, or ``IndexError`` for a Python kernel, which reads a list beyond
        its end exactly there."""
        python = fn is not None and fn.python is not None
        range_error = "IndexError" if python else "ValueError"
        checks: list[tuple[str, str]] = [self.precondition_check(p, ctx) for p in preconditions]
        n_preconditions = len(checks)

        def visit(t: Term, when: str | None = None) -> None:
            found: tuple[str, str] | None = None
            match t:
                case Take(TensorVar(a), n) | Tail(TensorVar(a), n):
                    found = self._range_check(ctx, a, Lit(0, DType.INT), n)
                case Slice(TensorVar(a), lo, hi):
                    found = self._range_check(ctx, a, lo, hi)
                case Strided(x, start, count, step):
                    found = self._gather_check(ctx, x, start, count, Lit(1, DType.INT), step)
                case Matrix(x, nr, nc, stride) if stride is not None:
                    found = self._gather_check(ctx, x, Lit(0, DType.INT), nr, nc, stride)
                case Matrix(x, nr, nc, None):
                    found = self.matrix_check(ctx, x, nr, nc)
                case MatMul():
                    # the operands are read only for a non-empty product (matmul_rule): an
                    # m x 0 product reads no element of A, as the source's loops do not
                    nonempty = self._matmul_nonempty(t, ctx)
                    when = nonempty if when is None else f"{when} and {nonempty}"
                case Stack(var, count, body):
                    # the body's views are affine in the row (stack_is_affine): inside their
                    # arrays for every row if for the first and the last, when there is a row
                    if not stack_is_affine(t):
                        raise CodegenError(f"the views of {show(t)} are not affine in its row: no range check")
                    visit(count, when)
                    n_text = bare(self.render(count, ctx))
                    rows_run = f"{n_text} > 0" if when is None else f"{when} and {n_text} > 0"
                    if is_tensor(body) and var not in free_vars(term_cols(t)):  # rows of no element read nothing
                        rows_run += f" and ({bare(self.render(term_cols(t), ctx))}) > 0"
                    last = ScalarOp("-", count, Lit(1, DType.INT), DType.INT)
                    for r in (Lit(0, DType.INT), last):
                        visit(substitute(body, {var: r}), rows_run)
                    return
                case _:
                    pass
            if found is not None:
                cond, text = found
                checks.append((cond, text) if when is None else (f"not ({when}) or ({cond})", f"{text} (when {when})"))
            for c in children(t):
                visit(c, when)

        if ranges:
            for o in outputs:
                if isinstance(o, ArrayOutput) and o.step is not None and rank(o.value) == 2:
                    # a block of rows lo + r*step + c (r < rows, c < cols)
                    checks.append(self._gather_check(ctx, TensorVar(o.array, output_term(o).dtype), o.lo,
                                                     rows(o.value), cols(o.value), o.step))
                elif isinstance(o, ArrayOutput) and o.step is not None:
                    # a strided output: its elements lo + j*step (j < the value's length)
                    checks.append(self._gather_check(ctx, TensorVar(o.array, output_term(o).dtype), o.lo,
                                                     length(o.value), Lit(1, DType.INT), o.step))
                elif isinstance(o, ArrayOutput):
                    checks.append(self._range_check(ctx, o.array, o.lo, o.hi))
                visit(output_term(o))
        lines: list[str] = []
        errors = {check: "ValueError" for check in checks[:n_preconditions]}
        for check in checks[n_preconditions:]:
            errors.setdefault(check, range_error)
        for (cond, text), error in errors.items():
            if error == "IndexError":
                text = f"list index out of range ({text})"
            lines.append(f"if not ({cond}):\n    raise {error}({text!r})")
        return lines + (self.raise_lines(python_raises(fn, outputs, ctx), ctx) if fn is not None else [])

    def raise_lines(self, raises: Sequence[RaiseCheck], ctx: EmitContext) -> list[str]:
        """Statements raising, in evaluation order, the exception of each place a Python
        kernel raises (:func:`tenspiler.codegen.raises.raise_checks`) where its count is not
        0; the counts are rendered with every integer in int64 (they are not in the range
        analysis's plan)."""
        if not raises:
            return []
        plain = replace(ctx, plan=None, cse_candidates=set(), cse={})
        lines = []
        for r in raises:
            if r.condition is not None:
                cond = render_loop_cond(r.condition, ctx.names)
            else:
                assert r.count is not None
                cond = f"({bare(self.render(r.count, plain))}) != 0"
            lines.append(f"if {cond}:\n    raise {r.exception}({r.message!r})")
        return lines

    def precondition_check(self, p: Precondition, ctx: EmitContext) -> tuple[str, str]:
        """``(condition, message)`` of one trip-count or shape precondition (a constant on the
        right, as ``n >= 0``)."""
        left, right = bare(self.render(p.left, ctx)), bare(self.render(p.right, ctx))
        if isinstance(p.left, Lit) and not isinstance(p.right, Lit):
            return f"{right} {'>=' if p.op == '<=' else p.op} {left}", p.message
        return f"{left} {p.op} {right}", p.message

    def matrix_check(self, ctx: EmitContext, x: Term, rows: Term, cols: Term) -> tuple[str, str]:
        """``matrix(x, rows, cols)``: a non-negative shape, and, for a view of a parameter, at
        least ``rows * cols`` elements (a reshape would fail, or a negative product slice
        from the end)."""
        r, c = self.render(rows, ctx), self.render(cols, ctx)
        need = [f"{v} >= 0" for v in (r, c) if not v.isdigit()]
        length = f"{self.render(x, ctx)}.shape[0]"
        if _is_view(x):
            need.append(f"{r} * {c} <= {length}")
        cond = " and ".join(need) or "True"
        return cond, f"precondition violated: need {cond.replace(length, f'len({show(x)})')}"

    def _gather_check(
        self, ctx: EmitContext, x: Term, start: Term, count: Term, width: Term, step: Term
    ) -> tuple[str, str]:
        """``count`` runs of ``width`` elements of ``x``, ``step`` apart from ``start``,
        lie inside ``x`` (indices are non-negative and below its length)."""
        r = lambda u: self.render(u, ctx)  # noqa: E731  (kept parenthesised: operands of * and +)
        xs, a, n, w, st = r(x), r(start), r(count), r(width), r(step)
        need = [f"{v} >= 0" for v in (a, st) if not v.isdigit()]
        first = "" if a == "0" else f"{a} + "
        need.append(f"{first}({n} - 1) * {st} + {w} <= {xs}.shape[0]")
        empty = [f"{v} <= 0" for v in (n, w) if not v.isdigit()]
        cond = " or ".join([*empty, f"({' and '.join(need)})" if empty else " and ".join(need)])
        return cond, f"precondition violated: need {cond}"

    def _range_check(self, ctx: EmitContext, array: str, lo: Term, hi: Term) -> tuple[str, str]:
        a = ctx.names[array]
        lo_s, hi_s = bare(self.render(lo, ctx)), bare(self.render(hi, ctx))
        cond = f"0 <= {lo_s} <= {hi_s} <= {a}.shape[0]"
        if lo_s == "0":
            cond = f"0 <= {hi_s} <= {a}.shape[0]"
        return cond, f"precondition violated: need {cond.replace(f'{a}.shape[0]', f'len({array})')}"

    def _function_doc(self, fn: Function, names: Mapping[str, str], returns: list[str]) -> str:
        params = []
        for p in fn.params:
            match p.type:
                case PointerType(elem):
                    ctype = f"{elem.c_name} *"
                case ScalarType(dtype):
                    ctype = f"{dtype.c_name} "
                case _:
                    assert_never(p.type)
            alias = f" (C `{p.name}`)" if names[p.name] != p.name else ""
            params.append(f"    {names[p.name]}: C `{ctype}{p.name}`{alias}")
        rets = [f"    {r}" for r in returns] or ["    None"]
        lines = [
            f'"""Equivalent of the C function `{fn.name}` (see the module docstring).',
            "",
            "Args:",
            *params,
            "",
            "Returns:" if len(returns) <= 1 else "Returns (a tuple, in this order):",
            *rets,
            '"""',
        ]
        return "\n".join(lines)


# ---------------------------------------------------------------- the C++ / Python entry


def cxx_adapter(
    fn: Function,
    ps: ProgramSummary,
    flat: str,
    names: Mapping[str, str],
    *,
    lib: PythonHostBackend,
    name: str | None = None,
    core: tuple[str, Sequence[str]] | None = None,
) -> str:
    """The entry with the C++ (or Python, ``fn.python``) signature of ``fn`` (``fn.cxx``):
    takes a 1-D array for a ``vector<T>`` / ``list`` and a 2-D array for a
    ``vector<vector<T>>`` / list of lists parameter, checks the shape
    preconditions of the summary, calls the flat function ``flat`` (C-style parameters,
    see :class:`~tenspiler.loops.ir.VectorParam`) and returns the result vector
    as a 1-D or 2-D array (or the returned scalar). ``lib`` spells the array operations
    (``lib._asarray_text`` …); ``name`` names the entry (default ``fn.name``).

    ``core``: ``(function, C parameters)`` of the flat function's body after its argument
    conversions (``lib._convert_param``), called instead of ``flat`` with those parameters
    converted here, once (the arrays already are: this entry converts them to the same
    dtype) — for µs kernels the second conversion and call cost as much as the work.

    Raises:
        CodegenError: the result's shape uses an expression this renderer lacks.
    """
    assert fn.cxx is not None
    lines: list[str] = []
    args: list[str] = []
    doc: list[str] = []
    py = fn.python is not None
    lang = "Python" if py else "C++"
    # the sizes read here: all (passed to `flat`), or those `core` takes, the shape
    # preconditions and the result's shape read
    read: set[str] | None = None
    if core is not None:
        read = set(core[1]) | {n for lhs, rhs in ps.preconditions for n in free_vars(lhs) | free_vars(rhs)}
        if fn.cxx.result is not None:
            read |= {n for e in fn.cxx.result.shape for n in _loop_vars(e)}
        if fn.python is not None:  # the argument checks read sizes, so does writing lists back
            read |= {n for g in fn.python.guards for n, _ in _guard_vars(g)}
            read |= {n for v in fn.cxx.signature if not isinstance(v, str) and v.name in fn.python.written
                     for n in v.sizes}
    written = fn.python.written if fn.python is not None else ()
    validations = [g for g in fn.python.guards if g.call is not None] if fn.python is not None else []
    given: dict[str, str] = {}
    if written or validations:
        if written and lib.name != "numpy":
            raise CodegenError(
                f"the Python function modifies its list argument(s) {', '.join(written)} in place: only the numpy "
                "backend writes results back into the arguments"
            )
        taken = set(names.values())
        for v in fn.cxx.signature:  # the objects given, before their conversions
            if not isinstance(v, str):
                given[v.name] = fresh_name(f"_given_{v.name}", taken)
                lines.append(f"{given[v.name]} = {names[v.name]}")
        if validations:
            assert fn.python is not None
            # a validation helper inspects the objects given before anything converts them
            # (a list of strings must raise its TypeError, not NumPy's ValueError): every
            # argument check runs first, in source order, a list's length read by len()
            at_entry = dict(names)
            for v in fn.cxx.signature:
                if not isinstance(v, str):
                    at_entry[v.sizes[0]] = f"len({given[v.name]})"
            readable = {*at_entry} - {n for v in fn.cxx.signature if not isinstance(v, str) for n in v.sizes[1:]}
            for g in fn.python.guards:
                missing = {n for n, _ in _guard_vars(g)} - readable
                if missing:
                    raise CodegenError(f"an argument check reads {', '.join(sorted(missing))} (a row length), which "
                                       "cannot be read before a validation helper has checked the arguments")
            lines += _arg_guard_lines(fn, fn.python.guards, at_entry, given)
    for v in fn.cxx.signature:
        if isinstance(v, str):
            args.append(names[v])
            p = fn.param(v)
            assert isinstance(p.type, ScalarType)
            if py:
                doc.append(f"    {names[v]}: Python `{v}: {'float' if p.type.dtype.is_float else 'int'}`")
            else:
                doc.append(f"    {names[v]}: C++ `{p.type.dtype.c_name} {v}`")
            continue
        a = names[v.name]
        if v.rank == 1:
            lines.append(f"{a} = {lib._reshape_text(lib._asarray_text(a, v.elem), '-1')}")
            if read is None or v.sizes[0] in read:
                lines.append(f"{names[v.sizes[0]]} = {a}.shape[0]")
            spelled = f"{v.name}: list[{v.elem_cxx}]" if py else f"vector<{v.elem_cxx}> {v.name}"
            doc.append(f"    {a}: {lang} `{spelled}`: a 1-D array" + (" or list" if py else ""))
        else:
            dims = [names[n] if read is None or n in read else "_" for n in v.sizes]
            rows_of = "planes of rows" if v.rank == 3 else "rows"
            lines.append(f"{a} = {lib._asarray_text(a, v.elem)}")
            # nested lists with an empty level (`[]`, `[[], []]`): no element, the missing
            # axes of length 0
            padded = f"*(tuple({a}.shape) + (0,) * ({v.rank} - {a}.ndim))"
            lines.append(f"if {a}.ndim < {v.rank} and 0 in tuple({a}.shape):\n    {a} = {lib._reshape_text(a, padded)}")
            lines.append(f"if {a}.ndim != {v.rank}:\n    raise ValueError('{v.name}: expected a {v.rank}-D array ({rows_of} of one length), got shape ' + str({a}.shape))")
            lines.append(f"{', '.join(dims)} = {a}.shape")
            lines.append(f"{a} = {lib._reshape_text(a, '-1')}")
            nested = "list[" * v.rank + v.elem_cxx + "]" * v.rank
            spelled = f"{v.name}: {nested}" if py else "vector<" * v.rank + v.elem_cxx + ">" * v.rank + f" {v.name}"
            axes = "planes x rows x cols" if v.rank == 3 else "rows x cols"
            as_list = " or nested lists" if v.rank == 3 else " or list of rows"
            doc.append(f"    {a}: {lang} `{spelled}`: a {v.rank}-D array ({axes})" + (as_list if py else ""))
        if not py:  # the type gate reads v.size() in [0, MAX_VECTOR_SIZE] (frontend.c_types)
            lines.append(f"if max({a}.shape, default=0) > {MAX_VECTOR_SIZE}:\n    raise ValueError("
                         f"'precondition violated: every dimension of {v.name} has at most {MAX_VECTOR_SIZE} elements (the model of size_t sizes)')")
        args.extend([a, *(names[n] for n in v.sizes)])
    if not validations:
        guards = fn.python.guards if fn.python is not None else ()
        lines += _arg_guard_lines(fn, guards, names, given)
    if written:  # (Python's argument checks come first: it raises nothing for aliasing)
        lines += _alias_check(fn, given)
    if read is not None:
        # the scalars read here converted first, as the flat function converts them (C
        # converts the arguments at the call): the arrays already are
        lines += [lib._convert_param(fn, v, names[v]) for v in fn.cxx.signature if isinstance(v, str) and v in read]
    for lhs, rhs in ps.preconditions:
        cond = f"{_render_cxx_scalar(lhs, names)} == {_render_cxx_scalar(rhs, names)}"
        lines.append(f"if not ({cond}):\n    raise ValueError({('precondition violated (shapes): need ' + show(lhs) + ' == ' + show(rhs))!r})")
    r = fn.cxx.result
    if r is not None:
        shape = [render_loop_expr(e, names) for e in r.shape]
        total = " * ".join(f"({d})" for d in shape)
        buf = names[r.array]
        lines.append(f"{buf} = {lib._zeros_text(total, r.elem)}")
        args.append(buf)
    if core is not None:
        callee, takes = core
        # (a result buffer the dialect stores in another dtype than the flat function's)
        if r is not None and r.array in takes and lib.param_repr(r.elem) != STORED[r.elem]:
            lines.append(lib._convert_param(fn, r.array, names[r.array]))
        call = f"{callee}({', '.join(names[p] for p in takes)})"
    else:
        call = f"{flat}({', '.join(args)})"
    if r is not None:
        res = "result"
        while res in names.values():
            res += "_"
        if core is not None and r.rank == 1:  # the flat function's result: `total` elements, 1-D
            lines.append(f"return {call}")
        elif r.rank == 1:  # the result's first `total` elements: already 1-D
            lines.append(f"{res} = {call}")
            lines.append(f"return {res}[: {total}]")
        else:
            lines.append(f"{res} = {call}")
            lines.append(f"return {lib._reshape_text(f'{res}[: {total}]', ', '.join(shape))}")
        what = ("list" if r.rank == 1 else "list of lists") if py else ("vector" if r.rank == 1 else "vector<vector>")
        ret = f"    a {r.rank}-D {lib._array_doc(r.elem)}: the returned {what}"
    elif written:
        lines += _write_back(fn, ps, call, names, given)
        ret = ("    the returned value; the list arguments " + ", ".join(written) + " are modified in place"
               if fn.return_dtype is not None else
               "    None: the list arguments " + ", ".join(written) + " are modified in place")
    else:
        lines.append(f"return {call}")
        ret = "    the returned value (see the flat function above)" if fn.return_dtype is not None else "    None"
    params = [names[v] if isinstance(v, str) else names[v.name] for v in fn.cxx.signature]
    docstring = "\n".join([
        f'"""Equivalent of the {lang} function `{fn.name}` (verified summary: see the module',
        "docstring; the function above is its flat C-style form)." if core is None
        else f"docstring; its flat C-style form is `{flat}`).",
        "",
        "Args:",
        *doc,
        "",
        "Returns:",
        ret,
        "",
        "Raises:",
        "    ValueError: an input violates a precondition of the proof (shapes, ranges).",
        '"""',
    ])
    body = "\n".join([docstring, *lines])
    return f"def {name or fn.name}({', '.join(params)}):\n{indent(body)}"


def _loop_vars(e: LExpr) -> set[str]:
    """The variables a loop-IR expression reads."""
    seen: set[str] = set()

    def visit(x: LExpr) -> LExpr:
        if isinstance(x, LVar):
            seen.add(x.name)
        return x

    map_expr(e, visit)
    return seen


def _render_cxx_scalar(t: Term, names: Mapping[str, str]) -> str:
    match t:
        case ScalarVar(name):
            return names.get(name, name)
        case Lit(value):
            return repr(value)
        case ScalarOp(op, a, b) if op in ("+", "-", "*"):
            return f"({_render_cxx_scalar(a, names)} {op} {_render_cxx_scalar(b, names)})"
        case ScalarSelect(Cmp(op, a, b), x, y):  # e.g. min(len(a[0]), len(b)), zip's length
            return (f"({_render_cxx_scalar(x, names)} if {_render_cxx_scalar(a, names)} {op} "
                    f"{_render_cxx_scalar(b, names)} else {_render_cxx_scalar(y, names)})")
    raise CodegenError(f"cannot check the precondition term {show(t)} in the C++ entry")


def _list_objects(p: str, rank: int) -> str:
    """The list objects of argument ``p``: itself and, for a list of lists, its rows."""
    return f"([{p}, *{p}] if isinstance({p}, list) else [{p}])" if rank == 2 else f"[{p}]"


def _alias_check(fn: Function, names: Mapping[str, str]) -> list[str]:
    """(``names``: the variables holding the list arguments as given.) A Python kernel that modifies list arguments in place reads them as distinct lists
    (the model's arrays): no written list (or row of a written list of lists) may be another
    argument or one of its rows — e.g. ``[[0] * n] * m`` has ``m`` times the same row."""
    assert fn.python is not None and fn.cxx is not None
    lists = [v for v in fn.cxx.signature if not isinstance(v, str)]
    w = [v for v in lists if v.name in fn.python.written]
    r = [v for v in lists if v.name not in fn.python.written]
    taken = {*names.values(), *(n.name for n in fn.params)}
    ws, rs, o = (fresh_name(n, taken) for n in ("_written", "_read", "_o"))
    wr = " + ".join(_list_objects(names[v.name], v.rank) for v in w)
    lines = [f"{ws} = [id({o}) for {o} in {wr}]"]
    cond = f"len(set({ws})) != len({ws})"
    if r:
        rd = " + ".join(_list_objects(names[v.name], v.rank) for v in r)
        lines.append(f"{rs} = {{id({o}) for {o} in {rd}}}")
        cond += f" or not {rs}.isdisjoint({ws})"
    msg = ("precondition violated: the list arguments the function modifies ("
           + ", ".join(v.name for v in w) + ") and their rows are distinct from every other argument and row")
    lines.append(f"if {cond}:\n    raise ValueError({msg!r})")
    return lines


def _write_back(fn: Function, ps: ProgramSummary, call: str, names: Mapping[str, str],
                given: Mapping[str, str]) -> list[str]:
    """Call the flat function and write the new contents of the modified list arguments
    into the objects given (a list's elements, each row's elements of a list of lists, or
    an array's), then return what the Python function returns."""
    from tenspiler.codegen.base import returned_outputs

    assert fn.cxx is not None
    outs = returned_outputs(ps)
    taken = set(names.values()) | set(given.values())
    res, row, new = (fresh_name(n, taken) for n in ("_results", "_row", "_new"))
    lines = [f"{res} = {call}"]
    vals = [res] if len(outs) == 1 else [f"{res}[{k}]" for k in range(len(outs))]
    value = "None"
    lists = {v.name: v for v in fn.cxx.signature if not isinstance(v, str)}
    for o, val in zip(outs, vals, strict=True):
        if isinstance(o, ArrayOutput) and o.array in given and o.array in (fn.python.written if fn.python else ()):
            v, g = lists[o.array], given[o.array]
            if v.rank == 1:
                lines.append(f"if isinstance({g}, list):\n    {g}[:] = {val}.tolist()\n"
                             f"else:\n    {g}[...] = {val}")
            else:
                rows, cols = (names[n] for n in v.sizes)
                lines.append(f"if isinstance({g}, list):\n"
                             f"    for {row}, {new} in zip({g}, {val}.reshape({rows}, {cols}).tolist()):\n"
                             f"        {row}[:] = {new}\n"
                             f"else:\n    {g}[...] = {val}.reshape({rows}, {cols})")
        elif not isinstance(o, ArrayOutput):
            value = val
    lines.append(f"return {value}")
    return lines


def _guard_vars(g: ArgGuard) -> Iterator[tuple[str, object]]:
    from tenspiler.frontend.common import cond_vars_read, vars_read

    if g.cond is not None:
        yield from cond_vars_read(g.cond)
    if g.value is not None:
        yield from vars_read(g.value)


def _arg_guard_lines(fn: Function, guards: Sequence[ArgGuard], names: Mapping[str, str],
                     given: Mapping[str, str]) -> list[str]:
    """The argument checks of a Python kernel (:class:`~tenspiler.loops.ir.ArgGuard`), in
    source order, on the arguments as given (before their conversions: a number parameter
    as the Python ``int`` / ``float`` it is, a list's sizes from its shape, a validation
    helper's text run on the objects given, ``given``): raise the same exception class,
    or return the early value."""
    lines = []
    taken = {*names.values(), *given.values()}
    for g in guards:
        if g.call is not None:
            text, helper, args = g.call
            local = fresh_name(f"_validate_{helper.strip('_')}", taken)
            _, _, rest = text.partition("(")
            lines.append(f"def {local}({rest}")
            lines.append(f"{local}({', '.join(given.get(a, names.get(a, a)) for a in args)})")
            continue
        assert g.cond is not None
        cond = _render_guard_cond(fn, g.cond, names)
        if g.exception is not None:
            lines.append(f"if {cond}:\n    raise {g.exception}({g.message!r})")
        else:
            assert g.value is not None
            lines.append(f"if {cond}:\n    return {_render_guard_expr(fn, g.value, names)}")
    return lines


def _render_guard_cond(fn: Function, c: LCond, names: Mapping[str, str]) -> str:
    match c:
        case LCompare(op, a, b):
            return f"({_render_guard_expr(fn, a, names)} {op} {_render_guard_expr(fn, b, names)})"
        case LLogical(op, a, b):
            return f"({_render_guard_cond(fn, a, names)} {'and' if op == '&&' else 'or'} {_render_guard_cond(fn, b, names)})"
        case LNot(x):
            return f"(not {_render_guard_cond(fn, x, names)})"
    raise CodegenError(f"cannot render the argument check {c!r}")


def _render_guard_expr(fn: Function, e: LExpr, names: Mapping[str, str]) -> str:
    """A loop-IR expression of an argument check in Python's own arithmetic (ints
    unbounded, floats doubles)."""
    match e:
        case LConst(value):
            return repr(value)
        case LVar(name):
            py = names.get(name, name)
            p = fn.param(name)
            if isinstance(p.type, ScalarType) and fn.cxx is not None and name in fn.cxx.signature:
                return f"{'float' if p.type.dtype.is_float else 'int'}({py})"
            return py
        case LBinary(op, left, right) if op in ("+", "-", "*"):
            return f"({_render_guard_expr(fn, left, names)} {op} {_render_guard_expr(fn, right, names)})"
        case LUnary("-", x):
            return f"(-{_render_guard_expr(fn, x, names)})"
        case LCast(x, dtype):
            return f"{'float' if dtype.is_float else 'int'}({_render_guard_expr(fn, x, names)})"
        case LCall("fabs", x):
            return f"abs({_render_guard_expr(fn, x, names)})"
        case LSelect(c, a, b):
            return (f"({_render_guard_expr(fn, a, names)} if {_render_guard_cond(fn, c, names)} "
                    f"else {_render_guard_expr(fn, b, names)})")
    raise CodegenError(f"cannot render the argument check's value {e!r}")


def render_loop_cond(c: LCond, names: Mapping[str, str]) -> str:
    """A loop-IR condition over the parameters (comparisons of :func:`render_loop_expr`
    expressions, ``&&``, ``||``, ``!``) as Python."""
    match c:
        case LCompare(op, a, b):
            return f"({render_loop_expr(a, names)} {op} {render_loop_expr(b, names)})"
        case LLogical(op, a, b):
            return f"({render_loop_cond(a, names)} {'and' if op == '&&' else 'or'} {render_loop_cond(b, names)})"
        case LNot(x):
            return f"(not {render_loop_cond(x, names)})"
    raise CodegenError(f"cannot render the condition {c!r}")


def render_loop_expr(e: LExpr, names: Mapping[str, str]) -> str:
    """A loop-IR integer expression over the parameters (a result shape) as Python."""
    match e:
        case LConst(value):
            return repr(value)
        case LVar(name):
            return names.get(name, name)
        case LBinary(op, left, right) if op in ("+", "-", "*"):
            return f"({render_loop_expr(left, names)} {op} {render_loop_expr(right, names)})"
        case LSelect(LCompare("<", a, LConst(0)), LConst(0), b) if a == b:
            return f"max(0, {render_loop_expr(a, names)})"
        case LSelect(LCompare(op, a, b), x, y) if op in ("<", "<=", ">", ">=") and (x, y) in ((a, b), (b, a)):
            # a < b ? a : b is min(a, b) (ties give the same value), a < b ? b : a is max(a, b)
            smaller = (op in ("<", "<=")) == ((x, y) == (a, b))
            fn = "min" if smaller else "max"
            return f"{fn}({render_loop_expr(a, names)}, {render_loop_expr(b, names)})"
        case LSelect(c, x, y):  # e.g. the number of columns zip(*m) yields: cols if rows > 0 else 0
            return f"({render_loop_expr(x, names)} if {render_loop_cond(c, names)} else {render_loop_expr(y, names)})"
    raise CodegenError(f"cannot render the result length {e!r} of the entry")


# ---------------------------------------------------------------- validation helpers


def _is_view(t: Term) -> bool:
    """A parameter array or a take / tail / slice of one (cheap to read twice)."""
    match t:
        case TensorVar():
            return True
        case Take(x, _) | Tail(x, _) | Slice(x, _, _):
            return _is_view(x)
    return False


def _check_vars(fn: Function, o: Output, t: Term, kinds: Mapping[str, bool]) -> None:
    """Every free variable of ``t`` is a parameter of the right kind."""
    for name in sorted(free_vars(t)):
        if name not in kinds:
            raise CodegenError(f"output {show_output(o)}: {name!r} is not a parameter of {fn.name}")
    bad = _kind_mismatch(t, kinds)
    if bad is not None:
        raise CodegenError(f"output {show_output(o)}: {bad}")


def _kind_mismatch(t: Term, kinds: Mapping[str, bool]) -> str | None:
    if isinstance(t, Stack):  # its variable: an integer scalar bound here
        kinds = {**kinds, t.var: False}
    if isinstance(t, TensorVar) and not kinds[t.name]:
        return f"{t.name!r} is used as a tensor but is a scalar parameter"
    if isinstance(t, ScalarVar) and kinds[t.name]:
        return f"{t.name!r} is used as a scalar but is a pointer parameter"
    for c in children(t):
        bad = _kind_mismatch(c, kinds)
        if bad is not None:
            return bad
    return None
