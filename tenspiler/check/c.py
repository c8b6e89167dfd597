"""The compiled original: C and C++ kernels built with the system compiler and called through
:mod:`ctypes` in a child process (the reference of ``--check``).

The C file (``Function.check_source``: the kernel, the functions it reaches and every
declaration, in the file's own text, :mod:`tenspiler.frontend.c_unit`; a C++ file whole)
is compiled into a shared library (``cc -std=gnu17 -O2 -fPIC -shared``, ``c++ -std=c++17 ...`` for C++, with UBSan for translation validation: the build
flags are the frontend's, :data:`tenspiler.frontend.preprocess.C_BUILD_FLAGS`, so the proof
read the kernel with the predefined macros of the build checked here) inside a fresh temporary directory under the caller's
``workdir`` (never next to the user's source); an entry wrapper takes flat buffers (struct
parameters rebuilt, ``T **`` rows pointed into the flat buffer; a C++ kernel's vectors built by
a ``c++`` wrapper). Each batch of inputs runs in one child process killed at a deadline
(:func:`tenspiler.runner.map_in_child`), so a crash or a hang of the C code is a reported
failure.

C ``int`` is 32 bits: inputs must be small enough that the kernel does not overflow (signed
overflow is undefined behaviour in C; UBSan reports it and the input is dropped).
"""

from __future__ import annotations

import ctypes
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, assert_never

import numpy as np

from tenspiler.budget import WALL_CLOCK
from tenspiler.errors import CodegenError
from tenspiler.frontend.preprocess import C_BUILD_FLAGS, CXX_BUILD_FLAGS, compiler
from tenspiler.loops.ir import DType, Function, PointerType, ScalarType
from tenspiler.runner import (
    Crashed,
    Outcome,
    Raised,
    Returned,
    TimedOut,
    map_in_child,
    run_command,
    signal_name,
)

#: ctypes type and NumPy buffer dtype of each C dtype.
CTYPES: dict[DType, type[Any]] = {
    DType.INT: ctypes.c_int,
    DType.UINT8: ctypes.c_ubyte,
    DType.FLOAT: ctypes.c_float,
    DType.DOUBLE: ctypes.c_double,
    DType.INT8: ctypes.c_byte,
    DType.INT16: ctypes.c_short,
    DType.UINT16: ctypes.c_ushort,
    DType.UINT32: ctypes.c_uint,
}
_BUFFER: dict[DType, type[np.generic]] = {
    DType.INT: np.int32,
    DType.UINT8: np.uint8,
    DType.FLOAT: np.float32,
    DType.DOUBLE: np.float64,
    DType.INT8: np.int8,
    DType.INT16: np.int16,
    DType.UINT16: np.uint16,
    DType.UINT32: np.uint32,
}

#: Value range of the integer C types (``int`` is 32 bits on every supported platform).
_INT_RANGE: dict[DType, tuple[int, int]] = {
    DType.INT: (-(2**31), 2**31 - 1),
    **{d: r for d in DType if (r := d.int_range) is not None},
}

_ENTRY_PREFIX = "tenspiler_check_"

#: Seconds one C call may take before the child running it is killed.
C_TIMEOUT = 10.0
#: Seconds one compilation may take (its process group is killed then, and on Ctrl-C).
COMPILE_TIMEOUT = 600.0

#: Compiler flags: the build the frontend read the kernel as (``C_BUILD_FLAGS``: the
#: predefined macros of the proof are this build's), plus flags that change no macro. The
#: entry wrapper declares each pointer parameter with the element type of the loop IR
#: (``int *`` …); ``-Werror=incompatible-pointer-types`` turns a kernel whose real element
#: type differs (``long *``, ``int64_t *``) into a compile error instead of a call with a
#: wrongly sized buffer.
CFLAGS = (*C_BUILD_FLAGS, "-shared", "-Werror=incompatible-pointer-types")
#: C++ kernels (``Function.cxx``): compiled with ``$CXX`` or ``c++``.
CXXFLAGS = (*CXX_BUILD_FLAGS, "-shared")
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


def _c_param_type(dtype: DType, pointer: bool, c_type: str = "") -> str:
    name = c_type if _wide(c_type, dtype) else dtype.c_name
    return f"{name} *" if pointer else f"{name} "


def _wide(c_type: str, dtype: DType) -> bool:
    """A 64-bit integer parameter (``Param.c_type`` holds its C spelling)."""
    return bool(c_type) and dtype == DType.INT


#: Unsigned scalar parameters (loop counts and sizes; ``Param.c_type``): ctypes type, range.
_UNSIGNED: dict[str, tuple[Any, int]] = {"unsigned int": (ctypes.c_uint32, 32), "unsigned long": (ctypes.c_uint64, 64)}


def _ctype(dtype: DType, c_type: str = "") -> Any:
    if dtype == DType.INT and c_type in _UNSIGNED:
        return _UNSIGNED[c_type][0]
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
    # a 2-D array parameter takes a pointer to rows: the flat buffer, converted through void *
    args = [f"(void *)p{i}" if p.c_rows else f"p{i}" for i, p in enumerate(fn.params)]
    setup: list[str] = []
    cleanup: list[str] = []
    for i, p in enumerate(fn.params):
        if p.global_var:  # a global the function reads: set before the call
            setup.append(f"{p.name} = p{i};")
            args[i] = ""
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
        args[first] = f"&{var}" if sp.pointer else var
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


def compile_c(fn: Function, workdir: Path, sanitize: bool = False) -> CKernel:
    """Compile ``fn.check_source`` (the kernel, the functions it reaches and every
    declaration of its file, :mod:`tenspiler.frontend.c_unit`; else ``fn.source``, the
    whole file) into a shared library and load ``fn.name`` from it.

    ``sanitize``: also compile with UBSan (:data:`SANITIZE`; falls back to a plain build
    when the compiler has no UBSan runtime).

    The compiler is ``$CC`` or ``cc``, run as ``cc -std=gnu17 -O2 -fPIC -shared
    -Werror=incompatible-pointer-types -iquote SRCDIR FLAGS -o kernel.so kernel.c -lm`` in a new
    temporary directory under ``workdir``, ``SRCDIR`` being the source file's directory (where
    the compiler looks first for the file's ``#include "..."`` headers) and ``FLAGS`` the
    lift's own compile flags (``Function.compile_flags``: include paths, macros, standard). The source gets an appended wrapper with external linkage
    that calls ``fn.name`` (so ``static``/``inline`` kernels work).

    Raises:
        CodegenError: no source text, no C compiler, or the compilation failed (the message
            carries the compiler's stderr).
    """
    if not fn.source.strip():
        raise CodegenError(f"no C source text for {fn.name}; cannot compile it for --check")
    cxx = fn.cxx is not None
    cc = compiler(cxx)
    if shutil.which(cc) is None:
        what = "C++" if cxx else "C"
        raise CodegenError(f"{what} compiler {cc!r} not found; cannot compile {fn.name}")
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"cc-{fn.name}-", dir=workdir))
    src = tmp / ("kernel.cc" if cxx else "kernel.c")
    lib = tmp / "kernel.so"
    src.write_text((fn.check_source or fn.source) + (_cxx_wrapper_source(fn) if cxx else _wrapper_source(fn)))
    # the copy is compiled elsewhere: `#include "x.h"` is looked for first in the directory
    # of the file that includes it (GCC and clang, "Search Path"), which -iquote restores
    home = Path(fn.loc.file) if fn.loc is not None else None
    quote = ["-iquote", str(home.resolve().parent)] if home is not None and home.is_file() else []
    flags = [*(CXXFLAGS if cxx else CFLAGS), *quote, *fn.compile_flags]  # the lift's own -I/-D/-std
    proc = None
    if sanitize:
        proc = run_command([cc, *flags, *SANITIZE, "-o", str(lib), str(src), "-lm"], COMPILE_TIMEOUT)
    if proc is None or proc.returncode != 0:
        proc = run_command([cc, *flags, "-o", str(lib), str(src), "-lm"], COMPILE_TIMEOUT)
    if proc.returncode != 0:
        what = "timed out" if proc.timed_out else f"failed ({proc.describe()})"
        raise CodegenError(f"compiling {fn.name} with {cc} {what}:\n{proc.stderr}")
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
    if dtype == DType.INT and c_type in _UNSIGNED:
        lo, hi = 0, (1 << _UNSIGNED[c_type][1]) - 1
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


# ---------------------------------------------------------------- running C in a child


def _crash_message(returncode: int | None, stderr: str = "") -> str:
    """Why the C function's child ended without a result: UBSan's report on its stderr
    (:data:`UB_MESSAGE`), else the signal or the exit code."""
    if "runtime error:" in stderr:
        return UB_MESSAGE
    name = signal_name(returncode)
    if name is not None:
        return f"the C function crashed ({name})"
    return f"the C function's process ended unexpectedly (exit code {returncode})"


def _raised(outcome: Outcome[dict[str, object]]) -> bool:
    return isinstance(outcome, Raised)


def run_c_all(
    kernel: CKernel, fn: Function, inputs_list: Sequence[Mapping[str, object]]
) -> list[dict[str, object] | str]:
    """:func:`run_c` on every input, in forked child processes so that a crashing kernel
    (``SIGFPE`` on ``x / 0``, ``SIGSEGV`` on a too-short array) cannot take the caller down
    (:func:`tenspiler.runner.map_in_child`, the child's stderr captured for UBSan's reports).

    Returns, per input, the final state or a message saying how the C function crashed or
    that it did not return within :data:`C_TIMEOUT` seconds (the next inputs then run in a
    new child). Where ``fork`` is unavailable, runs in process.

    Raises:
        Exception: what :func:`run_c` raised (``ValueError`` for an input that does not fit).
    """
    outcomes = map_in_child(
        partial(run_c, kernel, fn), inputs_list, timeout=C_TIMEOUT, stop=_raised, capture_stderr=True
    )
    results: list[dict[str, object] | str] = []
    for o in outcomes:
        match o:
            case Returned(value=state):
                results.append(state)
            case Raised(error=e):
                raise e
            case TimedOut():
                results.append(f"{WALL_CLOCK}: the C function did not return within {C_TIMEOUT:g} s")
            case Crashed(returncode=code, stderr=stderr):
                results.append(_crash_message(code, stderr))
            case _:
                assert_never(o)
    return results
