"""What every backend shares: the generated-code record, the ``Backend`` protocol and the
rule-table keys.

A backend turns a verified :class:`~tenspiler.ir.terms.ProgramSummary` of a
:class:`~tenspiler.loops.ir.Function` into source text (:class:`GeneratedCode`). Each
backend is a *table of rules* keyed by :func:`op_key` (one key per TensIR node type, and per
operator for the arithmetic nodes, e.g. ``"take"``, ``"tensor_tensor(/)"``) plus a little glue
(imports, header, dtype conversions). :func:`missing_ops` lists the keys a rule table lacks for
a term; :func:`no_rule_error` builds the :class:`~tenspiler.errors.CodegenError` naming the op.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field
from typing import Any, Protocol, assert_never, runtime_checkable

from tenspiler.errors import CodegenError
from tenspiler.ir.printer import show
from tenspiler.ir.terms import (
    ArgMax,
    ArrayOutput,
    Flatten,
    Full,
    Iota,
    Lit,
    MatMul,
    Matrix,
    Output,
    ProgramSummary,
    ReduceMax,
    ReduceProd,
    ReduceRows,
    ReduceSum,
    Scalar,
    ScalarApply,
    ScalarCast,
    ScalarOp,
    ScalarOutput,
    ScalarSelect,
    ScalarVar,
    Size,
    Slice,
    Stack,
    Strided,
    Tail,
    Take,
    Tensor,
    TensorCast,
    TensorMap,
    TensorScalar,
    TensorSelect,
    TensorTensor,
    TensorVar,
    Term,
    Transpose,
    children,
)
from tenspiler.loops.ir import Function

__all__ = [
    "Backend",
    "GeneratedCode",
    "NoRule",
    "Runner",
    "missing_ops",
    "no_rule_error",
    "op_key",
    "operands",
    "output_term",
    "returned_outputs",
]


@dataclass(frozen=True)
class GeneratedCode:
    """Source text produced by a backend.

    Attributes:
        backend: registry name of the backend (``"numpy"``).
        language: ``"python"`` for the Python-hosted backends.
        filename_suffix: suffix of the file the text should be written to (``".py"``).
        text: the whole module / translation unit, ending with a newline.
        entry: name of the generated function (the C function's name).
        params: the C parameter names, in the order ``entry`` takes them positionally
            (``()`` when unknown; callers then pass keyword arguments).
        extra_files: further files of the same result, ``(filename suffix, text)`` pairs,
            written next to the main one as ``<function><suffix>`` (e.g. the TPC backend's
            ``_glue.cpp`` and ``_host.py``).
        runner: for code that is not Python, a :class:`Runner` that executes it with the
            NumPy backend's calling convention (``--check`` uses it), or ``None``.
        placement: for a backend that lowers only part of the summary
            (:mod:`tenspiler.codegen.split`), the JSON-able device/host split
            (``Split.to_json()``); ``None`` when the code computes everything itself.
    """

    backend: str
    language: str
    filename_suffix: str
    text: str
    entry: str
    params: tuple[str, ...] = ()
    extra_files: tuple[tuple[str, str], ...] = ()
    runner: Runner | None = None
    placement: dict[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Runner:
    """How to execute generated code that is not Python (a device kernel plus host code).

    Attributes:
        text: a Python module defining ``GeneratedCode.entry`` with the NumPy backend's
            calling convention and return values; executing the module must not have side
            effects beyond compiling (and caching) what it runs.
        description: what actually runs, for reports (``"TPC-C kernel under
            tpc_emulation.h + NumPy host part"``).
    """

    text: str
    description: str


@runtime_checkable
class Backend(Protocol):
    """A code generator registered under :attr:`name`."""

    name: str

    def supports(self, term: Term) -> bool:
        """True when the backend has a rule for every node of ``term``."""
        ...

    def generate(self, fn: Function, ps: ProgramSummary) -> GeneratedCode:
        """Code computing the :func:`returned_outputs` of ``ps`` for the kernel ``fn``.

        Raises:
            CodegenError: an op of ``ps`` has no rule in this backend (the message names
                the op key and the output), or ``ps`` does not fit ``fn`` (unknown
                parameter, an output array that is not a pointer parameter).
        """
        ...


# ---------------------------------------------------------------- rule keys


def op_key(t: Term) -> str:
    """The rule-table key of ``t``'s root node, in the paper's (Fig. 2) op names.

    ``"scalar_var"``, ``"tensor_var"``, ``"lit"``, ``"size"``, ``"take"``, ``"tail"``,
    ``"slice"``, ``"reduce_sum"``, ``"reduce_max"``, ``"reduce_prod"``, ``"argmax"``, ``"scalar_cast"``, ``"tensor_cast"``, ``"matrix"``, ``"reduce_rows"``, ``"matmul"``, ``"scalar_select"``, ``"tensor_select"``,
    ``"full"``, ``"iota"``, ``"stack"``, and for the arithmetic nodes the op in
    parentheses: ``"scalar_op(+)"``, ``"tensor_tensor(/)"``, ``"tensor_scalar(%)"``,
    ``"scalar_tensor(-)"`` (a :class:`TensorScalar` with ``scalar_left``).
    """
    match t:
        case ScalarVar():
            return "scalar_var"
        case TensorVar():
            return "tensor_var"
        case Lit():
            return "lit"
        case Size():
            return "size"
        case Take():
            return "take"
        case Tail():
            return "tail"
        case Slice():
            return "slice"
        case ReduceSum():
            return "reduce_sum"
        case ReduceMax():
            return "reduce_max"
        case ReduceProd():
            return "reduce_prod"
        case ArgMax():
            return "argmax"
        case ScalarCast():
            return "scalar_cast"
        case TensorCast():
            return "tensor_cast"
        case ScalarApply(fn):
            return f"scalar_apply({fn})"
        case TensorMap(fn):
            return f"map({fn})"
        case ScalarSelect():
            return "scalar_select"
        case TensorSelect():
            return "tensor_select"
        case Matrix(stride=None):
            return "matrix"
        case Matrix():
            return "matrix_strided"
        case Transpose():
            return "transpose"
        case Strided():
            return "strided"
        case Full():
            return "full"
        case Flatten():
            return "flatten"
        case Iota():
            return "iota"
        case ReduceRows():
            return "reduce_rows"
        case MatMul():
            return "matmul"
        case Stack():
            return "stack"
        case ScalarOp(op):
            return f"scalar_op({op})"
        case TensorTensor(op):
            return f"tensor_tensor({op})"
        case TensorScalar(op, scalar_left=left):
            return f"scalar_tensor({op})" if left else f"tensor_scalar({op})"
        case _:
            assert_never(t)


def operands(t: ScalarOp | TensorTensor | TensorScalar) -> tuple[Term, Term]:
    """The two operands of an arithmetic node in evaluation order (left, right);
    ``scalar_tensor(s, t, op)`` gives ``(s, t)``."""
    match t:
        case ScalarOp(_, left, right) | TensorTensor(_, left, right):
            return left, right
        case TensorScalar(_, tensor, scalar, scalar_left):
            return (scalar, tensor) if scalar_left else (tensor, scalar)
        case _:
            assert_never(t)


def missing_ops(t: Term, rules: Container[str]) -> list[str]:
    """Keys of the nodes of ``t`` that have no entry in ``rules`` (sorted, unique)."""
    out: set[str] = set()

    def walk(u: Term) -> None:
        if op_key(u) not in rules:
            out.add(op_key(u))
        for c in children(u):
            walk(c)

    walk(t)
    return sorted(out)


class NoRule(CodegenError):
    """A backend has no rule for some ops of a term: it declines the summary.

    Attributes:
        backend: the backend's name.
        reason: ``"no rule for OP[, OP...] (in TERM)"``, what ``lift`` reports when this
            backend is not emitted beside others that are.
    """

    def __init__(self, backend: str, reason: str) -> None:
        super().__init__(f"backend {backend!r} has {reason}")
        self.backend, self.reason = backend, reason

    def __reduce__(self) -> tuple[type[NoRule], tuple[str, str]]:  # pickled as itself
        return NoRule, (self.backend, self.reason)


def no_rule_error(backend: str, t: Term, rules: Container[str]) -> NoRule:
    """The error for a term some of whose ops have no rule in ``backend``."""
    keys = missing_ops(t, rules)
    return NoRule(backend, f"no rule for {', '.join(keys)} (in {show(t)})")


def returned_outputs(ps: ProgramSummary) -> tuple[Output, ...]:
    """The outputs a generated function returns, in summary order.

    Every :class:`ArrayOutput` and the :class:`ScalarOutput` named ``"return"``; a
    ``ScalarOutput`` for a local variable is not observable by the C caller and is left out.
    """
    return tuple(o for o in ps.outputs if isinstance(o, ArrayOutput) or o.name == "return")


def output_term(o: Output) -> Scalar | Tensor:
    """The TensIR value of an output."""
    match o:
        case ArrayOutput(value=v):
            return v
        case ScalarOutput(value=v):
            return v
        case _:
            assert_never(o)


def float_contract(library: str) -> str:
    """What generated code promises about floats, one paragraph of its module docstring
    (every Python backend; ``library`` names the array library)."""
    return (
        "Floats: the proof is over the reals, so float results differ from the source's by "
        "rounding: both round every operation to float32 / float64, in different orders "
        f"({library} may sum pairwise or in blocks, C sums left to right). For a sum of n terms "
        "the difference can reach about n * u * (sum of |term|), u = 2**-24 for float and "
        "2**-53 for double (the error bound of recursive summation, Higham, Accuracy and "
        "Stability of Numerical Algorithms, 2nd ed., §4.2): e.g. 0.2 % of the total for 200,000 "
        "float terms of one sign; an intermediate value may overflow to ±inf in one order and "
        "not in the other. The reals have one zero: where a result is zero its sign may differ "
        "from C's, and so may the sign of an infinity from a division by it. Float inputs are "
        "assumed finite (not NaN or infinite; not checked): on NaN a max, min or comparison "
        f"follows {library}, not the source's comparisons."
    )


def decline_strided_outputs(ps: ProgramSummary, backend: str) -> None:
    """A backend without a rule for strided outputs (``y[lo:hi:step] = v``, a write at a
    run-time stride) declines the summary by name instead of writing a contiguous range.

    Raises:
        CodegenError: ``ps`` has a strided output.
    """
    for o in ps.outputs:
        if isinstance(o, ArrayOutput) and o.step is not None:
            from tenspiler.ir.printer import show_output

            raise CodegenError(f"{backend} has no rule for the strided output {show_output(o)}")
