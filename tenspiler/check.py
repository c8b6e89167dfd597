"""Differential check of generated code against the compiled original C source (for a
Python kernel, ``Function.python``, against the original function instead:
:mod:`tenspiler.check_python`).

The C file (``Function.source``) is compiled with the system C compiler into a shared
library (``cc -O2 -shared -fPIC``) inside a fresh temporary directory under the caller's
``workdir`` (never next to the user's source) and called through :mod:`ctypes`; the
generated module is executed in a fresh namespace; the values the generated function returns
are compared with the C function's final state (:func:`outputs_of`).

Input format (shared with the loop-IR interpreter): parameter name → Python int/float for a
scalar parameter, 1-D array-like for a pointer parameter (long enough for the kernel); a
struct parameter is given by its flat parameters (``Function.structs``), the rows of a
``T **`` field as one row-major array (row ``r`` starts at ``r * cols``).
Final-state format: ``{"return": value or None, <pointer param>: final array}`` with int64
arrays for ``int`` / ``unsigned char`` elements and float64 arrays for ``float`` /
``double``.

C ``int`` is 32 bits: inputs must be small enough that the kernel does not overflow (signed
overflow is undefined behaviour in C, while the generated code computes in int64).
"""

from __future__ import annotations

import ctypes
import faulthandler
import functools
import multiprocessing as mp
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, assert_never

import numpy as np

from tenspiler.codegen import GeneratedCode, backend_names, get_backend, returned_outputs
from tenspiler.errors import CodegenError
from tenspiler.ir.printer import show_output
from tenspiler.ir.terms import ArrayOutput, Output, ProgramSummary, ScalarOutput
from tenspiler.loops.ir import DType, Function, PointerType, ScalarType

#: Tolerances for float outputs (``np.allclose``); integer outputs must be equal.
RTOL = 1e-5
ATOL = 1e-6
#: ``float`` results (computed in float32 by both sides, in different orders) are compared
#: with an absolute tolerance relative to the largest magnitude in the result: a sum whose
#: terms cancel has a large *relative* error in any order.
FLOAT32_SCALE = 1e-5

#: ctypes type and NumPy buffer dtype of each C dtype.
CTYPES: dict[DType, type[Any]] = {
    DType.INT: ctypes.c_int,
    DType.UINT8: ctypes.c_ubyte,
    DType.FLOAT: ctypes.c_float,
    DType.DOUBLE: ctypes.c_double,
}
_BUFFER: dict[DType, type[np.generic]] = {
    DType.INT: np.int32,
    DType.UINT8: np.uint8,
    DType.FLOAT: np.float32,
    DType.DOUBLE: np.float64,
}

#: Value range of the integer C types (``int`` is 32 bits on every supported platform).
_INT_RANGE: dict[DType, tuple[int, int]] = {DType.INT: (-(2**31), 2**31 - 1), DType.UINT8: (0, 255)}

_ENTRY_PREFIX = "tenspiler_check_"

#: Seconds one C call may take before the child running it is killed.
C_TIMEOUT = 10.0

#: Compiler flags. The entry wrapper declares each pointer parameter with the element type
#: of the loop IR (``int *`` …); ``-Werror=incompatible-pointer-types`` turns a kernel whose
#: real element type differs (``long *``, ``int64_t *``) into a compile error instead of a
#: call with a wrongly sized buffer.
CFLAGS = ("-O2", "-shared", "-fPIC", "-Werror=incompatible-pointer-types")
#: C++ kernels (``Function.cxx``): compiled with ``$CXX`` or ``c++``.
CXXFLAGS = ("-O2", "-shared", "-fPIC", "-std=c++17")
#: Added for translation validation: UBSan stops the C function at its first undefined
#: behaviour (signed overflow, division by zero, invalid shift, ...) with a "runtime error"
#: report on the child's stderr, so inputs outside C's defined behaviour are recognised and
#: dropped instead of being compared.
SANITIZE = ("-fsanitize=undefined,float-cast-overflow", "-fno-sanitize-recover=all")
#: The message of a reference state on which C had undefined behaviour.
UB_MESSAGE = "undefined behaviour in the C function (UBSan)"


@dataclass(frozen=True)
class CKernel:
    """A compiled C kernel.

    Attributes:
        name: the C function's name.
        library: path of the shared library (inside the temporary directory).
        func: the ctypes function (a wrapper with external linkage that calls ``name``, so
            ``static`` and ``inline`` kernels can be called too), argtypes/restype set.
    """

    name: str
    library: Path
    func: Any
    _lib: ctypes.CDLL


@dataclass(frozen=True)
class CheckResult:
    """Outcome of :func:`differential_check`.

    Attributes:
        backend: the backend whose code was checked.
        n_inputs: number of inputs run.
        n_passed: inputs on which every returned value matched the C function's.
        first_failure: description of the first mismatch (input number, output, both
            values), or ``None``.
        ok: ``n_passed == n_inputs``.
    """

    backend: str
    n_inputs: int
    n_passed: int
    first_failure: str | None
    ok: bool


def _c_param_type(dtype: DType, pointer: bool, c_type: str = "") -> str:
    name = c_type if _wide(c_type, dtype) else dtype.c_name
    return f"{name} *" if pointer else f"{name} "


def _wide(c_type: str, dtype: DType) -> bool:
    """A 64-bit integer parameter (``Param.c_type`` holds its C spelling)."""
    return bool(c_type) and dtype == DType.INT


def _ctype(dtype: DType, c_type: str = "") -> Any:
    return ctypes.c_int64 if _wide(c_type, dtype) else CTYPES[dtype]


def _wrapper_source(fn: Function) -> str:
    """A function with external linkage that forwards to ``fn`` (which may be static).

    It takes the flat parameters of ``fn``; with struct parameters (``fn.structs``) it also
    takes, per ``T **`` field, the length of its flat buffer (a ``long``, after all the
    parameters), and builds each struct: scalar fields from their parameters, a ``T **``
    field as an array of row pointers into the flat buffer, ``cols`` elements apart (as many
    rows as the buffer holds; all at its start when ``cols <= 0``)."""
    params = [
        _c_param_type(p.type.elem, True, p.c_type) + f"p{i}"
        if isinstance(p.type, PointerType)
        else _c_param_type(p.type.dtype, False, p.c_type) + f"p{i}"
        for i, p in enumerate(fn.params)
    ]
    position = {p.name: i for i, p in enumerate(fn.params)}
    args = [f"p{i}" for i in range(len(fn.params))]
    setup: list[str] = []
    cleanup: list[str] = []
    n_rows = 0
    for k, sp in enumerate(fn.structs):
        var = f"tenspiler_s{k}"
        inits: list[str] = []
        for f in sp.fields:
            src = f"p{position[f.param]}"
            if f.cols is None:
                inits.append(f".{f.field} = {src}")
                continue
            p = fn.param(f.param)
            assert isinstance(p.type, PointerType)
            elem = _c_param_type(p.type.elem, True, p.c_type)
            cols, size, rows = f"p{position[f.cols]}", f"tenspiler_n{n_rows}", f"tenspiler_r{n_rows}"
            params.append(f"long {size}")
            n_rows += 1
            count = f"({cols} > 0 ? {size} / {cols} : {size}) + 1"
            setup.append(
                f"{elem}*{rows} = ({elem}*)__builtin_malloc(sizeof({elem}) * ({count}));"
                f" for (long tenspiler_k = 0; tenspiler_k < {count}; tenspiler_k++)"
                f" {rows}[tenspiler_k] = {src} + ({cols} > 0 ? tenspiler_k * {cols} : 0);"
            )
            inits.append(f".{f.field} = (__typeof__((({sp.c_type} *)0)->{f.field})){rows}")
            cleanup.append(f"__builtin_free({rows});")
        setup.append(f"{sp.c_type} {var} = {{ {', '.join(inits)} }};")
        flat = sp.flat
        first = position[flat[0]]
        args[first] = var
        for name in flat[1:]:
            args[position[name]] = ""
    call = f"{fn.name}({', '.join(a for a in args if a)})"
    ret = _c_param_type(fn.return_dtype, False, fn.return_c_type).strip() if fn.return_dtype is not None else "void"
    if not setup:
        body = f"return {call};" if fn.return_dtype is not None else f"{call};"
    elif fn.return_dtype is not None:
        body = " ".join([*setup, f"{ret} tenspiler_ret = {call};", *cleanup, "return tenspiler_ret;"])
    else:
        body = " ".join([*setup, f"{call};", *cleanup])
    return f"\n\n{ret} {_ENTRY_PREFIX}{fn.name}({', '.join(params) or 'void'}) {{ {body} }}\n"


def _row_buffers(fn: Function) -> list[str]:
    """The flat parameters holding the rows of a ``T **`` struct field, in the order of the
    wrapper's extra length arguments (see :func:`_wrapper_source`)."""
    return [f.param for sp in fn.structs for f in sp.fields if f.cols is not None]


#: Extra arguments of the C++ entry wrapper when the kernel returns a vector: the result
#: buffer, its capacity (elements) and a ``long[2]`` receiving the result's shape (rows,
#: columns; columns ``-1`` when the rows differ in length).
_RESULT_ARGS = "tenspiler_out, long tenspiler_cap, long *tenspiler_shape"


def _cxx_wrapper_source(fn: Function) -> str:
    """An ``extern "C"`` function taking the flat parameters of C++ kernel ``fn``
    (pointer + sizes per vector), building the vectors, calling ``fn`` and copying a
    returned vector into a caller's buffer."""
    cxx = fn.cxx
    assert cxx is not None
    params: list[str] = []
    setup: list[str] = []
    call: list[str] = []
    for k, v in enumerate(cxx.signature):
        if isinstance(v, str):
            p = fn.param(v)
            assert isinstance(p.type, ScalarType)
            params.append(_c_param_type(p.type.dtype, False, p.c_type) + f"s{k}")
            call.append(f"s{k}")
            continue
        t = v.elem_cxx
        if v.rank == 1:
            params += [f"const {t} *p{k}", f"int n{k}"]
            setup.append(f"std::vector<{t}> v{k}(p{k}, p{k} + (n{k} < 0 ? 0 : n{k}));")
        elif v.rank == 3:
            params += [f"const {t} *p{k}", f"int q{k}", f"int r{k}", f"int c{k}"]
            setup.append(
                f"std::vector<std::vector<std::vector<{t}>>> v{k}(q{k} < 0 ? 0 : q{k},"
                f" std::vector<std::vector<{t}>>(r{k} < 0 ? 0 : r{k}));"
                f" for (long q = 0; q < q{k}; q++) for (long r = 0; r < r{k}; r++)"
                f" v{k}[q][r].assign(p{k} + (q * r{k} + r) * c{k}, p{k} + (q * r{k} + r + 1) * c{k});"
            )
        else:
            params += [f"const {t} *p{k}", f"int r{k}", f"int c{k}"]
            setup.append(
                f"std::vector<std::vector<{t}>> v{k}(r{k} < 0 ? 0 : r{k});"
                f" for (long r = 0; r < r{k}; r++) v{k}[r].assign(p{k} + r * c{k}, p{k} + (r + 1) * c{k});"
            )
        call.append(f"v{k}")
    invoke = f"{fn.name}({', '.join(call)})"
    r = cxx.result
    if r is not None:
        params.append(f"{r.elem_cxx} *{_RESULT_ARGS}")
        if r.rank == 1:
            copy = (
                f"auto res = {invoke}; tenspiler_shape[0] = (long)res.size(); tenspiler_shape[1] = 0;"
                " for (long k = 0; k < (long)res.size() && k < tenspiler_cap; k++) tenspiler_out[k] = res[k];"
            )
        else:
            copy = (
                f"auto res = {invoke}; tenspiler_shape[0] = (long)res.size();"
                " tenspiler_shape[1] = res.empty() ? 0 : (long)res[0].size(); long k = 0;"
                " for (const auto &row : res) { if ((long)row.size() != tenspiler_shape[1]) tenspiler_shape[1] = -1;"
                " for (auto x : row) { if (k < tenspiler_cap) tenspiler_out[k] = x; k++; } }"
            )
        ret, body = "void", copy
    elif fn.return_dtype is not None:
        ret = _c_param_type(fn.return_dtype, False, fn.return_c_type).strip()
        body = f"return {invoke};"
    else:
        ret, body = "void", f"{invoke};"
    return (
        "\n\n#include <cstdint>\n#include <vector>\n"
        f'extern "C" {ret} {_ENTRY_PREFIX}{fn.name}({", ".join(params) or "void"}) {{\n'
        + "".join(f"    {line}\n" for line in setup)
        + f"    {body}\n}}\n"
    )


def can_check(language: str) -> bool:
    """Whether translation validation can run for a kernel in ``language`` (``"c"``,
    ``"cxx"`` or ``"python"``): Python always; C / C++ when ``$CC``/``cc`` or
    ``$CXX``/``c++`` is on ``PATH``."""
    if language == "python":
        return True
    cc = os.environ.get("CXX", "c++") if language == "cxx" else os.environ.get("CC", "cc")
    return shutil.which(cc) is not None


def compile_c(fn: Function, workdir: Path, sanitize: bool = False) -> CKernel:
    """Compile ``fn.source`` into a shared library and load ``fn.name`` from it.

    ``sanitize``: also compile with UBSan (:data:`SANITIZE`; falls back to a plain build
    when the compiler has no UBSan runtime).

    The compiler is ``$CC`` or ``cc``, run as ``cc -O2 -shared -fPIC
    -Werror=incompatible-pointer-types -o kernel.so kernel.c -lm`` in a new temporary
    directory under ``workdir``. The source gets an appended wrapper with external linkage
    that calls ``fn.name`` (so ``static``/``inline`` kernels work).

    Raises:
        CodegenError: no source text, no C compiler, or the compilation failed (the message
            carries the compiler's stderr).
    """
    if not fn.source.strip():
        raise CodegenError(f"no C source text for {fn.name}; cannot compile it for --check")
    cxx = fn.cxx is not None
    cc = os.environ.get("CXX", "c++") if cxx else os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        what = "C++" if cxx else "C"
        raise CodegenError(f"{what} compiler {cc!r} not found; cannot compile {fn.name}")
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"cc-{fn.name}-", dir=workdir))
    src = tmp / ("kernel.cc" if cxx else "kernel.c")
    lib = tmp / "kernel.so"
    src.write_text(fn.source + (_cxx_wrapper_source(fn) if cxx else _wrapper_source(fn)))
    flags = CXXFLAGS if cxx else CFLAGS
    proc = None
    if sanitize:
        proc = subprocess.run(
            [cc, *flags, *SANITIZE, "-o", str(lib), str(src), "-lm"],
            capture_output=True, text=True, check=False,
        )
    if proc is None or proc.returncode != 0:
        proc = subprocess.run(
            [cc, *flags, "-o", str(lib), str(src), "-lm"],
            capture_output=True,
            text=True,
            check=False,
        )
    if proc.returncode != 0:
        raise CodegenError(
            f"compiling {fn.name} with {cc} failed (exit {proc.returncode}):\n{proc.stderr}"
        )
    handle = ctypes.CDLL(str(lib))
    func = getattr(handle, _ENTRY_PREFIX + fn.name)
    func.argtypes = [
        ctypes.POINTER(_ctype(p.type.elem, p.c_type))
        if isinstance(p.type, PointerType)
        else _ctype(p.type.dtype, p.c_type)
        for p in fn.params
    ]
    if fn.cxx is not None and fn.cxx.result is not None:
        func.argtypes += [ctypes.c_long, ctypes.POINTER(ctypes.c_long)]
    func.argtypes += [ctypes.c_long for _ in _row_buffers(fn)]
    func.restype = _ctype(fn.return_dtype, fn.return_c_type) if fn.return_dtype is not None else None
    return CKernel(fn.name, lib, func, handle)


def _to_buffer(name: str, value: object, dtype: DType, c_type: str = "") -> np.ndarray:
    """Copy an input array into a fresh C-typed buffer; refuse values the C type cannot hold."""
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise ValueError(f"input {name!r}: expected a 1-D array, got shape {arr.shape}")
    if not dtype.is_float:
        integral = np.issubdtype(arr.dtype, np.integer) or bool(np.all(np.trunc(arr) == arr))
        if not integral:
            raise ValueError(f"input {name!r}: non-integer values for a {dtype.c_name} array")
        lo, hi = (-(2**63), 2**63 - 1) if _wide(c_type, dtype) else _INT_RANGE[dtype]
        if arr.size and (np.min(arr) < lo or np.max(arr) > hi):
            raise ValueError(f"input {name!r}: values outside the range of C {dtype.c_name}")
    return np.array(arr, dtype=np.int64 if _wide(c_type, dtype) else _BUFFER[dtype], copy=True, order="C")


def _to_scalar(name: str, value: object, dtype: DType, c_type: str = "") -> int | float:
    if dtype.is_float:
        return float(value)  # type: ignore[arg-type]
    v = int(value)  # type: ignore[call-overload]
    lo, hi = (-(2**63), 2**63 - 1) if _wide(c_type, dtype) else _INT_RANGE[dtype]
    if not lo <= v <= hi:
        raise ValueError(f"input {name!r}: {v} is outside the range of C {dtype.c_name}")
    return v


def run_c(kernel: CKernel, fn: Function, inputs: Mapping[str, object]) -> dict[str, object]:
    """Call the compiled kernel on copies of ``inputs``.

    Returns:
        ``{"return": value or None, <pointer param>: final array}`` — the return value as a
        Python int/float, every pointer parameter's final contents as int64 (``int``,
        ``unsigned char``) or float64 (``float``, ``double``) arrays.

    Raises:
        KeyError: a parameter has no input.
        ValueError: an input does not fit its C type (not 1-D, out of range).
    """
    args: list[object] = []
    buffers: dict[str, np.ndarray] = {}
    for p in fn.params:
        if p.name not in inputs:
            raise KeyError(f"no input for parameter {p.name!r} of {fn.name}")
        match p.type:
            case PointerType(elem):
                buf = _to_buffer(p.name, inputs[p.name], elem, p.c_type)
                buffers[p.name] = buf
                args.append(buf.ctypes.data_as(ctypes.POINTER(_ctype(elem, p.c_type))))
            case ScalarType(dtype):
                args.append(_to_scalar(p.name, inputs[p.name], dtype, p.c_type))
            case _:
                assert_never(p.type)
    args += [ctypes.c_long(buffers[name].shape[0]) for name in _row_buffers(fn)]
    shape = (ctypes.c_long * 2)()
    r = fn.cxx.result if fn.cxx is not None else None
    if r is not None:
        # the result buffer is the flat parameter r.array; its input length is the capacity
        args += [ctypes.c_long(buffers[r.array].shape[0]), shape]
    ret = kernel.func(*args)
    state: dict[str, object] = {"return": None}
    if r is not None:
        rows, cols = int(shape[0]), int(shape[1])
        total = rows if r.rank == 1 else rows * max(cols, 0)
        if cols < 0:
            state["result"] = "the C++ function returned rows of different lengths"
        elif total > buffers[r.array].shape[0]:
            state["result"] = f"the C++ result has {total} elements, more than the {buffers[r.array].shape[0]} expected"
        else:
            flat = buffers[r.array][:total].astype(np.float64 if r.elem.is_float else np.int64)
            state["result"] = flat if r.rank == 1 else flat.reshape(rows, cols)
    if fn.return_dtype is not None:
        state["return"] = float(ret) if fn.return_dtype.is_float else int(ret)
    for name, buf in buffers.items():
        state[name] = buf.astype(np.float64 if buf.dtype.kind == "f" else np.int64)
    return state


def run_generated(code: GeneratedCode, inputs: Mapping[str, object]) -> object:
    """Execute the generated module in a fresh namespace and call its entry on ``inputs``.

    Arguments are passed positionally in ``code.params`` order (keywords when ``params`` is
    empty). Returns whatever the entry returns. Code that is not Python runs through its
    ``code.runner`` module (same calling convention). Code of an array-library backend
    (torch, mlx, tensorflow, jax) gets its NumPy inputs as the library's arrays and returns
    NumPy (:func:`_run_array_code`).

    Raises:
        CodegenError: ``code`` is not Python and has no runner.
    """
    text = code.text
    if code.language != "python":
        if code.runner is None:
            raise CodegenError(f"cannot run {code.language} code from backend {code.backend!r}")
        text = code.runner.text  # e.g. a device kernel under emulation plus its host part
    backend = get_backend(code.backend) if code.backend in backend_names() else None
    if code.language == "python" and hasattr(backend, "to_native"):
        return _run_array_code(backend, code, inputs)
    namespace: dict[str, Any] = {"__name__": f"tenspiler_generated_{code.entry}"}
    exec(compile(text, f"<{code.backend}:{code.entry}>", "exec"), namespace)
    entry = namespace[code.entry]
    # float overflow to inf (exp of a large input) happens in the C as well: compare, not warn
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        if code.params:
            return entry(*(inputs[p] for p in code.params))
        return entry(**inputs)


@functools.lru_cache(maxsize=16)
def _array_module(backend: str, entry: str, text: str) -> dict[str, Any]:
    """The namespace of a generated array-library module (executed once per text: its
    ``_jit`` cache and the library's per-shape caches are kept between inputs)."""
    namespace: dict[str, Any] = {"__name__": f"tenspiler_generated_{entry}"}
    exec(compile(text, f"<{backend}:{entry}>", "exec"), namespace)
    return namespace


def _run_array_code(backend: Any, code: GeneratedCode, inputs: Mapping[str, object]) -> object:
    """:func:`run_generated` for an array-library backend (``ArrayBackend``: torch, mlx,
    tensorflow, jax): NumPy array inputs become the library's arrays (lists and numbers
    stay), the results come back as NumPy (``backend.to_numpy``).

    Raises:
        CodegenError: the code modified one of its (native) inputs.
    """
    entry = _array_module(code.backend, code.entry, code.text)[code.entry]
    args = {k: backend.to_native(v) if isinstance(v, np.ndarray) else v for k, v in inputs.items()}
    before = {k: np.array(backend.to_numpy(v), copy=True) for k, v in args.items() if k in inputs and isinstance(inputs[k], np.ndarray)}
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        got = entry(*(args[p] for p in code.params)) if code.params else entry(**args)
    for k, v in before.items():
        if not np.array_equal(np.asarray(backend.to_numpy(args[k])), v, equal_nan=v.dtype.kind == "f"):
            raise CodegenError(f"{code.backend} code modified its input {k!r}")
    return backend.to_numpy(got)


def outputs_of(fn: Function, ps: ProgramSummary, final_state: Mapping[str, object]) -> tuple:
    """The values the generated function returns, picked from a final state
    ``{"return": v, <array>: final array}``, in summary order (:func:`returned_outputs`)."""
    out: list[object] = []
    for o in returned_outputs(ps):
        match o:
            case ArrayOutput(array):
                out.append(final_state[array])
            case ScalarOutput():
                out.append(final_state["return"])
            case _:
                assert_never(o)
    return tuple(out)


def _output_dtype(fn: Function, o: Output) -> DType:
    if isinstance(o, ArrayOutput):
        t = fn.param(o.array).type
        assert isinstance(t, PointerType)
        return t.elem
    assert fn.return_dtype is not None
    return fn.return_dtype


def term_magnitude(fn: Function, ps: ProgramSummary, inputs: Mapping[str, object]) -> float:
    """The largest magnitude the summary's outputs reach on ``inputs`` with every float input
    replaced by its absolute value (evaluated over the reals): for a sum of products it is
    the sum of the terms' magnitudes, the scale of any order's rounding error (the forward
    error bound of floating-point summation, Higham, *Accuracy and Stability of Numerical
    Algorithms*, §4.2). 0.0 where the summary cannot be evaluated on them."""
    from tenspiler.ir.interp import evaluate

    env: dict[str, object] = {}
    for name, v in inputs.items():
        a = np.asarray(v)
        env[name] = np.abs(a.astype(np.float64)) if a.dtype.kind == "f" else v
    for p in fn.params:
        if isinstance(p.type, ScalarType) and p.type.dtype.is_float and p.name in env:
            env[p.name] = abs(float(env[p.name]))  # type: ignore[arg-type]
    top = 0.0
    for o in ps.outputs:
        try:
            x = np.abs(np.asarray(evaluate(o.value, env), dtype=np.float64))
        except Exception:  # a precondition or an undefined operation on the changed inputs
            return 0.0
        x = x[np.isfinite(x)]
        top = max(top, float(np.max(x, initial=0.0)))
    return top


def _same(expected: object, got: object, dtype: DType, magnitude: float = 0.0) -> bool:
    """Equal for integers; for floats within RTOL/ATOL, and for C ``float`` results (rounded
    in float32 by both sides, in different orders) within FLOAT32_SCALE of the larger of the
    result's magnitude and ``magnitude`` (:func:`term_magnitude`)."""
    e, g = np.asarray(expected), np.asarray(got)
    if e.shape != g.shape:
        return False
    if dtype.is_float:
        atol = ATOL
        if dtype == DType.FLOAT and e.size:
            finite = np.abs(e[np.isfinite(e)])  # 0-d arrays index to shape (0,) or (1,)
            atol = max(ATOL, FLOAT32_SCALE * max(float(np.max(finite, initial=1.0)), magnitude))
        return bool(np.allclose(g.astype(np.float64), e, rtol=RTOL, atol=atol, equal_nan=True))
    if not np.issubdtype(g.dtype, np.integer) and not np.all(np.trunc(g) == g):
        return False
    return bool(np.array_equal(e.astype(np.int64), g.astype(np.int64)))


def _fmt(v: object) -> str:
    if isinstance(v, np.ndarray):
        return np.array2string(v, threshold=20, separator=", ")
    return repr(v)


def format_inputs(inputs: Mapping[str, object]) -> str:
    return ", ".join(
        f"{k}={_fmt(np.asarray(v)) if not np.isscalar(v) else _fmt(v)}" for k, v in inputs.items()
    )


def _snapshot(inputs: Mapping[str, object]) -> dict[str, object]:
    return {k: np.array(v, copy=True) if not np.isscalar(v) else v for k, v in inputs.items()}


# ---------------------------------------------------------------- running C in a child


def _c_worker(
    kernel: CKernel, fn: Function, inputs_list: Sequence[Mapping[str, object]], send: Any,
    stderr_fd: int,
) -> None:
    """Child process body: run each input and send ``("state", final state)`` or
    ``("raise", exception)`` back, in order. The C function's stderr (UBSan's reports)
    goes to ``stderr_fd``, which the parent reads."""
    faulthandler.disable()  # a crash is expected and reported by the parent; no dump
    os.dup2(stderr_fd, 2)
    try:
        for inputs in inputs_list:
            try:
                send.send(("state", run_c(kernel, fn, inputs)))
            except Exception as e:
                send.send(("raise", e))
    finally:
        send.close()


def _crash_message(exitcode: int | None, stderr: bytes = b"") -> str:
    if b"runtime error:" in stderr:
        return UB_MESSAGE
    if exitcode is not None and exitcode < 0:
        try:
            return f"the C function crashed ({signal.Signals(-exitcode).name})"
        except ValueError:
            pass
    return f"the C function's process ended unexpectedly (exit code {exitcode})"


def _run_c_all(
    kernel: CKernel, fn: Function, inputs_list: Sequence[Mapping[str, object]]
) -> list[dict[str, object] | str]:
    """:func:`run_c` on every input, in forked child processes so that a crashing kernel
    (``SIGFPE`` on ``x / 0``, ``SIGSEGV`` on a too-short array) cannot take the caller down.

    Returns, per input, the final state or a message saying how the C function crashed
    (the next inputs then run in a new child). Where ``fork`` is unavailable, runs in
    process.

    Raises:
        Exception: what :func:`run_c` raised (``ValueError`` for an input that does not fit).
    """
    if "fork" not in mp.get_all_start_methods():
        return [run_c(kernel, fn, inputs) for inputs in inputs_list]
    ctx = mp.get_context("fork")
    results: list[dict[str, object] | str] = []
    while len(results) < len(inputs_list):
        recv, send = ctx.Pipe(duplex=False)
        timed_out = False
        rest = inputs_list[len(results) :]
        errf = tempfile.TemporaryFile()  # noqa: SIM115 (closed below, after the child ends)
        proc = ctx.Process(target=_c_worker, args=(kernel, fn, rest, send, errf.fileno()), daemon=True)
        proc.start()
        send.close()
        try:
            while len(results) < len(inputs_list):
                if not recv.poll(C_TIMEOUT):
                    timed_out = True
                    break
                try:
                    kind, value = recv.recv()
                except EOFError:
                    break
                if kind == "raise":
                    raise value
                results.append(value)
        finally:
            recv.close()
            if timed_out:
                proc.kill()
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()
                proc.join()
        errf.seek(0)
        stderr = errf.read()
        errf.close()
        if len(results) < len(inputs_list):
            results.append(
                f"the C function did not return within {C_TIMEOUT:g} s"
                if timed_out
                else _crash_message(proc.exitcode, stderr)
            )
    return results


# ---------------------------------------------------------------- comparing


def _check_one(
    fn: Function,
    ps: ProgramSummary,
    code: GeneratedCode,
    state: dict[str, object] | str,
    inputs: Mapping[str, object],
) -> str | None:
    """``None`` when the generated code agrees with the C final ``state`` on ``inputs``,
    else what differs."""
    if isinstance(state, str):
        return state
    if fn.python is not None:
        from tenspiler.check_python import check_one_python

        return check_one_python(fn, ps, code, state, inputs)
    if fn.cxx is not None:
        return _check_one_cxx(fn, ps, code, state, inputs)
    outputs = returned_outputs(ps)
    written = {o.array for o in outputs if isinstance(o, ArrayOutput)}
    for p in fn.arrays:
        if p.name not in written and not _same(inputs[p.name], state[p.name], p.type.elem):  # type: ignore[union-attr]
            return f"C modified {p.name!r} but the summary has no output for it"
    expected = outputs_of(fn, ps, state)

    given = _snapshot(inputs)
    try:
        got = run_generated(code, given)
    except Exception as e:  # the generated code must not raise on valid inputs
        return f"{code.backend} code raised {type(e).__name__}: {e}"
    if len(outputs) == 0:
        got_values: object = () if got is None else got
    else:
        got_values = (got,) if len(outputs) == 1 else got
    if not isinstance(got_values, tuple) or len(got_values) != len(outputs):
        return f"{code.backend} code returned {got!r}, expected {len(outputs)} value(s)"
    for k, v in given.items():
        if not np.array_equal(np.asarray(v), np.asarray(inputs[k])):
            return f"{code.backend} code modified its input {k!r}"
    magnitude = term_magnitude(fn, ps, inputs) if any(_output_dtype(fn, o) == DType.FLOAT for o in outputs) else 0.0
    for o, want, g in zip(outputs, expected, got_values, strict=True):
        if not _same(want, g, _output_dtype(fn, o), magnitude):
            return f"{show_output(o)}: C gave {_fmt(want)}, {code.backend} gave {_fmt(g)}"
    return None


def vector_inputs(fn: Function, inputs: Mapping[str, object]) -> dict[str, object]:
    """The C++ view of flat inputs of ``fn`` (``fn.cxx``): per vector parameter a 1-D
    array of its length, a 2-D array (rows x cols) or a 3-D one (planes x rows x cols);
    scalars as they are."""
    assert fn.cxx is not None
    out: dict[str, object] = {}
    for v in fn.cxx.signature:
        if isinstance(v, str):
            out[v] = inputs[v]
            continue
        dims = [max(int(inputs[n]), 0) for n in v.sizes]  # type: ignore[call-overload]
        flat = np.asarray(inputs[v.name])[: int(np.prod(dims))]
        out[v.name] = flat.copy() if v.rank == 1 else flat.reshape(dims)
    return out


def _check_one_cxx(
    fn: Function, ps: ProgramSummary, code: GeneratedCode, state: dict[str, object], inputs: Mapping[str, object]
) -> str | None:
    """C++ kernels: the generated entry (C++ signature) on the vector view of ``inputs``
    against what the compiled C++ function returned (the vector, shape included, or the
    scalar)."""
    assert fn.cxx is not None
    r = fn.cxx.result
    want = state["result"] if r is not None else state["return"]
    if isinstance(want, str):
        return want
    given = vector_inputs(fn, inputs)
    snapshot = _snapshot(given)
    try:
        got = run_generated(code, given)
    except Exception as e:  # the generated code must not raise on valid inputs
        return f"{code.backend} code raised {type(e).__name__}: {e}"
    for k, v in snapshot.items():
        if not np.array_equal(np.asarray(v), np.asarray(given[k])):
            return f"{code.backend} code modified its input {k!r}"
    dtype = r.elem if r is not None else fn.return_dtype
    if dtype is None:
        return None if got is None else f"{code.backend} code returned {got!r} for a void function"
    if r is not None and r.rank == 2 and np.asarray(want).shape[:1] == (0,) and np.asarray(got).shape[:1] == (0,):
        return None  # a vector of no rows: both empty (the C++ side has no row length to report)
    magnitude = term_magnitude(fn, ps, inputs) if dtype == DType.FLOAT else 0.0
    if not _same(want, got, dtype, magnitude):
        what = "the returned vector" if r is not None else "the return value"
        w, g = np.asarray(want), np.asarray(got)
        shapes = f" (shapes {w.shape} and {g.shape})" if w.shape != g.shape else ""
        return f"{what}: C++ gave {_fmt(w)}, {code.backend} gave {_fmt(g)}{shapes}"
    return None


def differential_check(
    fn: Function,
    ps: ProgramSummary,
    code: GeneratedCode,
    inputs_list: Sequence[Mapping[str, object]],
    workdir: Path,
    states: Sequence[dict[str, object] | str] | None = None,
) -> CheckResult:
    """Run the compiled C function and the generated code on each input and compare.

    Compared: every value the generated code returns (:func:`outputs_of`), whole arrays
    including the elements outside the written range; also, arrays without an output in
    ``ps`` must be left unchanged by the C function. Integer outputs must be equal; float
    outputs must satisfy ``np.allclose(got, expected, rtol=1e-5, atol=1e-6)`` (the C code
    computes in float32 and may sum in a different order). An exception in the generated
    code, a wrong number of results, or a modified input counts as a mismatch; so does a
    crash of the C function (it runs in a forked child process, so a ``SIGFPE`` or
    ``SIGSEGV`` is reported instead of killing the caller). ``states``: the reference's
    results on ``inputs_list`` (:func:`reference_states`) when already computed, e.g. once for
    several backends.

    Raises:
        ValueError: ``inputs_list`` is empty (a check on no inputs proves nothing), or an
            input does not fit its C type.
        CodegenError: the C source does not compile.
    """
    if not inputs_list:
        raise ValueError("differential_check needs at least one input")
    if states is None:
        states = reference_states(fn, inputs_list, workdir)
    passed = 0
    first: str | None = None
    for i, (inputs, state) in enumerate(zip(inputs_list, states, strict=True)):
        problem = _check_one(fn, ps, code, state, inputs)
        if problem is None:
            passed += 1
        elif first is None:
            first = f"input #{i} ({format_inputs(inputs)}): {problem}"
    n = len(inputs_list)
    return CheckResult(code.backend, n, passed, first, passed == n)


def reference_states(
    fn: Function, inputs_list: Sequence[Mapping[str, object]], workdir: Path,
    sanitize: bool = False,
) -> list[dict[str, object] | str]:
    """What :func:`differential_check` compares with, per input: the final state of the C /
    C++ function compiled under ``workdir`` (run in forked children; with UBSan if
    ``sanitize``, then :data:`UB_MESSAGE` marks an input with undefined behaviour), or the
    original Python function's result; a string says how the reference failed on that input.

    Raises:
        ValueError: an input does not fit its C type.
        CodegenError: the C source does not compile.
    """
    if fn.python is not None:  # the reference is the original Python function
        from tenspiler.check_python import run_python_all

        return run_python_all(fn, inputs_list)
    return _run_c_all(compile_c(fn, workdir, sanitize), fn, inputs_list)


def model_mismatch(fn: Function, model: Mapping[str, object], state: Mapping[str, object]) -> str | None:
    """Translation validation of the frontend: ``None`` when the loop-IR interpreter's final
    state ``model`` (:func:`tenspiler.loops.interp.run_function`) equals the
    compiled source's ``state`` on the same input — the return value and every pointer
    parameter, exactly for integers, within the float tolerances otherwise — else what
    differs. For C and C++ kernels (a Python kernel's reference has another format).
    Floats are modelled as reals: a float element that C computed as infinite or NaN
    (overflow of the float type, outside the model) is not compared."""

    def same(c: object, m: object, dtype: DType) -> bool:
        if dtype.is_float:
            c_arr, m_arr = np.asarray(c, dtype=np.float64), np.asarray(m, dtype=np.float64)
            if c_arr.shape == m_arr.shape:
                finite = np.isfinite(c_arr)
                return _same(c_arr[finite], m_arr[finite], dtype)
        return _same(c, m, dtype)

    if fn.return_dtype is not None and not same(state["return"], model["return"], fn.return_dtype):
        return f"return: C gave {_fmt(state['return'])}, the loop IR {_fmt(model['return'])}"
    for p in fn.arrays:
        if p.name in state and p.name in model:
            elem = p.type.elem  # type: ignore[union-attr]
            if not same(state[p.name], model[p.name], elem):
                return f"{p.name}: C gave {_fmt(state[p.name])}, the loop IR {_fmt(model[p.name])}"
    return None
