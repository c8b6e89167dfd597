"""Speed of the generated code against the C++ source it replaces (issues 5 and 18, paper §6.3).

    python benchmarks/speed.py [--kernels blend,llama,speed] [--backends numpy,torch,...] [--reps 5]
                               [--rounds 4] [--heap warm] [--json FILE]

For every blend kernel on a 1920×1080 uint8 image pair and every Llama kernel at llama-7B
shapes (4096-element vectors, 4096×4096 and 11008×4096 matrices), plus whole softmax / rmsnorm
and a 1024³ GEMM (suite ``speed``):

* the original C++ kernel (``benchmarks/kernels/**/*.cc``) compiled with ``g++ -O3``, timed
  in C++ (``std::chrono`` on vectors built once — the paper's setting);
* the code generated for each Python-hosted backend (``numpy``, and ``torch``, ``mlx``,
  ``tensorflow``, ``jax`` when installed and registered): *excluding* data conversion
  (inputs already in the framework's arrays; result materialised) and *including* it (NumPy
  inputs in, handed over without a copy where the library allows — ``torch.from_numpy``; for
  JAX the NumPy arrays themselves to a ``jax.jit`` entry, whose dispatch shares them, and
  ``jnp.from_dlpack`` for an eager entry; XLA shares only 64-byte-aligned buffers: the inputs
  of every runner are allocated so (:data:`ALIGNMENT`) —, NumPy result out); plus the module's jit-compiled entry ``<name>_jit``
  where it has one, whose first call says whether it compiled (PyTorch: graphs captured and
  graph breaks from ``torch._dynamo``'s counters; a fallback to eager is printed as
  ``JIT FELL BACK`` and in the header).

Reproducibility: lifting (through the result cache, :mod:`tenspiler.cache`) runs first; then
every runner — ``g++ -O3`` and each backend — runs in a process of its own
(``--worker``), so that thread pools do not fight (a runner waits idle while another is
timed). The runners take turns kernel by kernel — g++, numpy, torch, jax on one kernel, then
the next kernel —, for ``--rounds`` rounds (the order of the runners reversed every other
round), so that the C++ time and the backends' times of a kernel are taken seconds apart
and a drift in the machine's speed falls on them alike, and each median pools samples from
``--rounds`` windows minutes apart (on this VM the same NumPy call took 3.5 µs in one 50 ms
window and 5.0 µs in the next). A backend's module is loaded (and its jit entries
compiled) once, in the first round. Each runner keeps the memory it frees (``--heap warm``: :data:`WARM_HEAP`), so that
the VM's page-fault cost does not decide the times; inputs are
seeded by the kernel's name, the same in every process. Each measurement is ``--reps``
samples per round (a sample averages as many calls as fit in ~1 ms, at most 1000, on both sides); rows
print the median and the spread ((max − min) / median); the JSON keeps every sample. The
header and the JSON record the environment: CPU model, cores, the ``OMP_*`` / ``OPENBLAS_*``
/ ``MKL_*`` / ``XLA_*`` / ``TORCH*`` / ``MALLOC_*`` variables, compiler and library versions,
each library's threads (``threadpoolctl`` when installed) and the jit status per kernel.

Prints one row per kernel (ms and the speed-up = C++ time / backend time, of the faster
entry, then of the eager and the jit entry each), the geometric
mean per backend, the kernels slower than the source on every backend, NumPy on the kernels
taking ≥ 1 ms in C++, and for the elementwise kernels the bytes/s the fastest backend
achieves next to a plain ``numpy.copyto`` of the same bytes. This is a measurement, not a
test: it never fails on slow code.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import functools
import importlib
import json
import math
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

import tenspiler
from tenspiler.bench.machine import machine, packages
from tenspiler.codegen import backend_names
from tenspiler.errors import TenspilerError
from tenspiler.frontend.c import parse_c_file
from tenspiler.loops.ir import Function, ScalarType, VectorParam

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "benchmarks" / "kernels"

H, W = 1080, 1920  # a 1920×1080 image: rows × columns
DIM, HIDDEN, SEQ, HEAD_SIZE = 4096, 11008, 4096, 128
GEMM = 1024  # a GEMM_vec of 1024 x 1024 x 1024

#: Shapes and scalar values per kernel (the measurement setup; synthesis never sees it):
#: vector parameter → shape, scalar parameter → value.
SETUP: dict[str, dict[str, Any]] = {
    **{k: {"base": (H, W), "active": (H, W)} for k in (
        "color_burn", "color_dodge", "darken_blend", "lighten_blend", "linear_burn", "linear_dodge",
        "multiply_blend", "overlay_blend", "screen_blend")},
    "dissolve_blend": {"base": (H, W), "active": (H, W), "rand_threshold": (H, W), "opacity": 128},
    "normal_blend": {"base": (H * W,), "active": (H * W,), "opacity": 77},
    "normal_blend_f": {"base": (H * W,), "active": (H * W,), "opacity": 0.3},
    "matmul": {"weight": (DIM, DIM), "input": (DIM,)},
    "matmul_ffn": {"weight": (HIDDEN, DIM), "input": (DIM,)},
    "rmsnorm_part1": {"input": (DIM,), "weight": (DIM,)},
    "rmsnorm_part2": {"input": (DIM,), "weight": (DIM,), "ss": 1234.5},
    "softmax_part1": {"input": (DIM,), "max_pos": DIM},
    "softmax_part2": {"input": (DIM,), "max_pos": DIM, "max_val": 3.0},
    "softmax_part3": {"output": (DIM,), "max_pos": DIM},
    "softmax_part4": {"unnormalized_output": (DIM,), "max_pos": DIM, "sum": 17.0},
    "transformer_part1": {"token_position": SEQ - 1, "head": 5, "head_size": HEAD_SIZE,
                          "key_cache_layer": (SEQ, DIM), "q": (DIM,)},
    "transformer_part2": {"token_position": SEQ - 1, "head": 5, "head_size": HEAD_SIZE,
                          "value_cache_layer": (SEQ, DIM), "attention": (SEQ,)},
    "transformer_part3": {"input": (HIDDEN,), "hidden_dim": HIDDEN},
    "transformer_part4": {"input1": (HIDDEN,), "input2": (HIDDEN,), "hidden_dim": HIDDEN},
    # whole functions of several loops, and a plain triple-loop GEMM (suite "speed")
    "softmax_whole": {"input": (DIM,), "size": DIM},
    "rmsnorm_whole": {"input": (DIM,), "weight": (DIM,)},
    "gemm_vec": {"A": (GEMM * GEMM,), "B": (GEMM * GEMM,), "M": GEMM, "N": GEMM, "K": GEMM},
}
#: A direct library call computing the same as the kernel (timed next to it: how close the
#: generated code comes to calling the library by hand).
REFERENCE: dict[str, Callable[[dict[str, Any]], Any]] = {
    "gemm_vec": lambda x: np.matmul(x["A"].reshape(x["M"], x["K"]), x["B"].reshape(x["K"], x["N"])),
}
#: Elementwise kernels (bytes/s is reported for them).
ELEMENTWISE = {k for k, v in SETUP.items() if k.endswith("blend") or k.endswith("burn") or k.endswith("dodge")} | {
    "rmsnorm_part2", "softmax_part2", "softmax_part4", "transformer_part3", "transformer_part4"}


#: Input arrays start at a multiple of this many bytes: XLA's CPU client shares (DLPack)
#: only 64-byte-aligned buffers and copies any other; NumPy's allocator aligns to 16 bytes.
ALIGNMENT = 64

#: Seconds of untimed calls before the samples of every measurement (C++ and Python alike;
#: at least the one call that sizes the samples).
WARM_UP = 0.05

#: glibc malloc settings every runner process gets under ``--heap warm`` (the default; a
#: variable already set is kept): freed memory stays in the process, so a call does not
#: fault in fresh pages its predecessor gave back. The blend kernels' C++ allocates ~6 MB
#: of row vectors per call (by-value copies and ``push_back``); by default glibc returns
#: them and every call faults them in again, so g++'s time followed the VM's page-fault
#: cost: multiply_blend ran 3.9 ms in one run and 6-15 ms in the next. With these it ran
#: 3.4-4.2 ms (occasionally 5.8) in every process. Large NumPy temporaries are kept alike.
WARM_HEAP = {
    "MALLOC_TRIM_THRESHOLD_": str(1 << 30),
    "MALLOC_TOP_PAD_": str(1 << 26),
    "MALLOC_MMAP_THRESHOLD_": str(1 << 30),
}


def _aligned(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` whose data starts at a multiple of :data:`ALIGNMENT` bytes."""
    raw = np.empty(a.nbytes + ALIGNMENT, dtype=np.uint8)
    start = -raw.ctypes.data % ALIGNMENT
    out = raw[start:start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def _inputs(fn: Function, setup: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """The C++ view of the inputs: arrays of the configured shapes (64-byte aligned, the
    same for every runner), scalars as given."""
    assert fn.cxx is not None
    out: dict[str, Any] = {}
    for v in fn.cxx.signature:
        if isinstance(v, VectorParam):
            shape = setup[v.name]
            if v.elem_cxx == "uint8_t":
                out[v.name] = _aligned(rng.integers(0, 256, shape, dtype=np.uint8))
            else:
                out[v.name] = _aligned(rng.standard_normal(shape).astype(np.float32 if v.elem_cxx == "float" else np.float64))
        else:
            p = fn.param(v)
            assert isinstance(p.type, ScalarType)
            out[v] = setup[v]
    return out


# ---------------------------------------------------------------- the C++ source, g++ -O3


def _cxx_timer_source(fn: Function) -> str:
    """``extern "C" void tenspiler_time(<flat args>, int reps, double *samples)``: builds
    the vectors once and writes the wall time per call of ``reps`` samples (seconds)."""
    assert fn.cxx is not None
    params, setup, call = [], [], []
    for k, v in enumerate(fn.cxx.signature):
        if isinstance(v, str):
            p = fn.param(v)
            assert isinstance(p.type, ScalarType)
            params.append(f"{'double' if p.type.dtype.is_float else 'long'} s{k}")
            call.append(f"s{k}")
            continue
        t = v.elem_cxx
        if v.rank == 1:
            params += [f"const {t} *p{k}", f"long n{k}"]
            setup.append(f"std::vector<{t}> v{k}(p{k}, p{k} + n{k});")
        else:
            params += [f"const {t} *p{k}", f"long r{k}", f"long c{k}"]
            setup.append(f"std::vector<std::vector<{t}>> v{k}(r{k});"
                         f" for (long r = 0; r < r{k}; r++) v{k}[r].assign(p{k} + r * c{k}, p{k} + (r + 1) * c{k});")
        call.append(f"v{k}")
    body = "\n    ".join(setup)
    return f"""
#include <chrono>
#include <cstdint>
#include <vector>
static volatile double tenspiler_sink;
static double tenspiler_touch(double x) {{ return x; }}
template <class T> static double tenspiler_touch(const std::vector<T> &v) {{ return v.empty() ? 0.0 : (double)v[v.size() / 2]; }}
template <class T> static double tenspiler_touch(const std::vector<std::vector<T>> &v) {{ return v.empty() ? 0.0 : tenspiler_touch(v[v.size() / 2]); }}
extern "C" void tenspiler_time({", ".join(params)}, int reps, double *samples) {{
    {body}
    auto tenspiler_c0 = std::chrono::steady_clock::now();
    tenspiler_sink = tenspiler_touch({fn.name}({", ".join(call)}));
    double tenspiler_single = std::chrono::duration<double>(std::chrono::steady_clock::now() - tenspiler_c0).count();
    long tenspiler_inner = (long)(1e-3 / (tenspiler_single > 1e-7 ? tenspiler_single : 1e-7));
    tenspiler_inner = tenspiler_inner < 1 ? 1 : tenspiler_inner > 1000 ? 1000 : tenspiler_inner;
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - tenspiler_c0).count() < {WARM_UP!r}) {{
        auto res = {fn.name}({", ".join(call)});  // warm-up, untimed
        tenspiler_sink = tenspiler_touch(res);
    }}
    for (int k = 0; k < reps; k++) {{
        auto t0 = std::chrono::steady_clock::now();
        for (long tenspiler_j = 0; tenspiler_j < tenspiler_inner; tenspiler_j++) {{
            auto res = {fn.name}({", ".join(call)});
            tenspiler_sink = tenspiler_touch(res);
        }}
        auto t1 = std::chrono::steady_clock::now();
        samples[k] = std::chrono::duration<double>(t1 - t0).count() / tenspiler_inner;
    }}
}}
"""


def time_cxx(fn: Function, inputs: dict[str, Any], reps: int, workdir: Path) -> list[float]:
    """Seconds per call of the source compiled with ``g++ -O3``: one value per sample."""
    src = workdir / f"{fn.name}_timer.cc"
    lib = workdir / f"{fn.name}_timer.so"
    if not lib.exists():  # (compiled in the first round)
        src.write_text(fn.source + _cxx_timer_source(fn))
        cxx = os.environ.get("CXX", "g++")
        subprocess.run([cxx, "-O3", "-std=c++17", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    handle = ctypes.CDLL(str(lib))
    f = handle.tenspiler_time
    args: list[Any] = []
    argtypes: list[Any] = []
    keep: list[np.ndarray] = []
    assert fn.cxx is not None
    for v in fn.cxx.signature:
        if isinstance(v, str):
            p = fn.param(v)
            assert isinstance(p.type, ScalarType)
            if p.type.dtype.is_float:
                args.append(float(inputs[v]))
                argtypes.append(ctypes.c_double)
            else:
                args.append(int(inputs[v]))
                argtypes.append(ctypes.c_long)
            continue
        a = np.ascontiguousarray(inputs[v.name])
        keep.append(a)
        args.append(a.ctypes.data_as(ctypes.c_void_p))
        argtypes.append(ctypes.c_void_p)
        for d in (a.shape if v.rank == 2 else (a.shape[0],)):
            args.append(int(d))
            argtypes.append(ctypes.c_long)
    samples = np.zeros(reps, dtype=np.float64)
    f.argtypes = [*argtypes, ctypes.c_int, ctypes.c_void_p]
    f.restype = None
    f(*args, reps, samples.ctypes.data_as(ctypes.c_void_p))
    return samples.tolist()


# ---------------------------------------------------------------- generated code


def samples_of(call: Callable[[], Any], reps: int) -> list[float]:
    """Seconds per call, one value per sample (``reps`` samples); a sample runs the call
    ``inner`` times (as many as fit in ~1 ms, at most 1000: timer overhead does not count for
    µs-scale kernels), after an untimed warm-up of :data:`WARM_UP` seconds (at least one
    call), exactly as the C++ timer does. (The warm-up matters: a JAX jit entry of a µs
    kernel ran 32-117 µs a call in the samples right after its first call, 8-9 µs later.)"""
    t0 = time.perf_counter()
    call()
    inner = max(1, min(1000, int(1e-3 / max(time.perf_counter() - t0, 1e-7))))
    while time.perf_counter() - t0 < WARM_UP:
        call()
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            call()
        out.append((time.perf_counter() - t0) / inner)
    return out


def _to_numpy(x: Any) -> Any:
    """A framework's result as NumPy (zero-copy where the library allows: a CPU tensor's
    ``.numpy()``, ``np.asarray`` of a JAX array)."""
    if isinstance(x, tuple):
        return tuple(_to_numpy(v) for v in x)
    if hasattr(x, "numpy") and not isinstance(x, np.ndarray):
        try:
            return x.numpy()
        except (TypeError, RuntimeError):
            return np.asarray(x)
    return np.asarray(x)


def _handed_over(backend: str, x: Any, jit: bool) -> Any:
    """What the *including conversion* timing gives an entry for the NumPy input ``x``: the
    cheapest hand-over the library offers. For a JAX ``jax.jit`` entry that is ``x`` itself:
    jit's dispatch shares a 64-byte-aligned NumPy buffer (measured on 2 × 2 MiB uint8: 161 µs
    against 125 µs on JAX arrays, 895 µs unaligned), where importing it first by DLPack
    costs ~30 µs per array and a further ~100 µs per call. Otherwise :func:`_native`."""
    if backend == "jax" and jit:
        return x
    return _native(backend, x)


def _native(backend: str, x: Any) -> Any:
    """``x`` as the framework's array, without a copy where the library allows it
    (``torch.from_numpy``; DLPack for JAX, which copies a buffer that is not 64-byte
    aligned); scalars stay Python numbers."""
    if not isinstance(x, np.ndarray):
        return x
    if backend == "torch":
        import torch

        return torch.from_numpy(x)
    if backend == "mlx":
        import mlx.core as mx

        return mx.array(x)
    if backend == "tensorflow":
        import tensorflow as tf

        return tf.convert_to_tensor(x)
    if backend == "jax":
        import jax.numpy as jnp

        return jnp.from_dlpack(x)
    return x


def _materialise(backend: str, r: Any) -> Any:
    """Wait for the result (lazy / asynchronous frameworks)."""
    if backend == "mlx":
        import mlx.core as mx

        mx.eval(r)
    elif backend == "jax":
        import jax

        jax.block_until_ready(r)
    return r


def _jit_status(backend: str, first: Callable[[], Any]) -> dict[str, Any]:
    """Runs the jit entry's first call (``first``) and says whether it compiled: for PyTorch
    from ``torch._dynamo``'s counters (graphs captured, graph breaks — each a part left to
    eager Python — and frames that failed), for JAX ``jax.jit`` (always compiled or raises).
    ``first_call_s``: the first call's seconds (compilation included)."""
    before: dict[str, int] = {}
    counters: Any = None
    if backend == "torch":
        from torch._dynamo.utils import counters

        before = {"graphs": counters["stats"]["unique_graphs"], "breaks": sum(counters["graph_break"].values())}
    t0 = time.perf_counter()
    _materialise(backend, first())
    status: dict[str, Any] = {"first_call_s": time.perf_counter() - t0}
    if backend == "torch":
        graphs = counters["stats"]["unique_graphs"] - before["graphs"]
        breaks = sum(counters["graph_break"].values()) - before["breaks"]
        status.update(graphs=graphs, graph_breaks=breaks,
                      graph_break_reasons=sorted(counters["graph_break"])[:5])
        status["compiled"] = graphs > 0 and breaks == 0
        if not status["compiled"]:
            status["why"] = ("no graph captured: the entry ran eagerly" if graphs == 0
                             else f"{breaks} graph break(s): parts ran eagerly")
    else:
        status["compiled"] = True
    return status


def time_backend(code: str, function: str, backend: str, inputs: dict[str, Any], params: list[str],
                 reps: int, modules: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Samples (seconds per call) of ``{"native", "with_conversion", "jit"?,
    "jit_with_conversion"?}`` and ``jit_status`` (:func:`_jit_status`); ``*with_conversion``:
    NumPy inputs in (:func:`_handed_over`), NumPy result out (:func:`_to_numpy`).
    ``modules``: the modules loaded by earlier rounds, by code (this one is added): a
    module loaded before keeps its compiled jit entry, whose status the first round gave."""
    modules = {} if modules is None else modules
    first = code not in modules
    if first:
        modules[code] = {"__name__": f"speed_{backend}"}
        exec(compile(code, f"<{backend}>", "exec"), modules[code])
    ns = modules[code]
    entry = ns[function]
    native = [_native(backend, inputs[p]) for p in params]

    def run(f: Callable[..., Any]) -> Callable[[], Any]:
        # eager NumPy / PyTorch / TensorFlow calls return finished results: time the call
        # alone; JAX and MLX dispatch asynchronously / lazily: wait for the result
        if backend in ("jax", "mlx"):
            return lambda: _materialise(backend, f(*native))
        return functools.partial(f, *native)

    out: dict[str, Any] = {
        "native": samples_of(run(entry), reps),
        "with_conversion": samples_of(
            lambda: _to_numpy(entry(*[_handed_over(backend, inputs[p], jit=False) for p in params])), reps),
    }
    jit = ns.get(f"{function}_jit")
    if callable(jit):
        if first:
            out["jit_status"] = _jit_status(backend, run(jit))
        out["jit"] = samples_of(run(jit), reps)
        out["jit_with_conversion"] = samples_of(
            lambda: _to_numpy(jit(*[_handed_over(backend, inputs[p], jit=True) for p in params])), reps
        )
    return out


# ---------------------------------------------------------------- the environment


def _first_line(cmd: list[str]) -> str:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        return (p.stdout or p.stderr).splitlines()[0] if (p.stdout or p.stderr) else ""
    except (OSError, subprocess.SubprocessError):
        return "not found"


def machine_environment() -> dict[str, Any]:
    """What the numbers depend on outside the code: the machine (:mod:`tenspiler.bench.machine`),
    the threading and allocator variables, compiler and library versions, the load."""
    libs = ("numpy", "torch", "jax", "jaxlib", "tensorflow", "tensorflow-cpu", "mlx", "threadpoolctl")
    prefixes = ("OMP_", "OPENBLAS_", "MKL_", "KMP_", "GOMP_", "XLA_", "TF_", "JAX_", "TORCH", "MALLOC_", "CXX")
    return {
        **machine(),
        "cxx": _first_line([os.environ.get("CXX", "g++"), "--version"]),
        "variables": {k: v for k, v in sorted(os.environ.items()) if k.startswith(prefixes)},
        "versions": {k: v for k, v in packages(libs).items() if v is not None},
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def library_threads(backend: str) -> dict[str, Any]:
    """The threading of ``backend``'s library in this process (after it ran)."""
    out: dict[str, Any] = {}
    try:
        from threadpoolctl import threadpool_info

        out["threadpools"] = [{k: d.get(k) for k in ("internal_api", "num_threads", "version")}
                              for d in threadpool_info()]
    except ImportError:
        out["threadpools"] = "threadpoolctl not installed"
    if backend == "torch":
        import torch
        import torch._dynamo.config as dynamo_config

        out.update(num_threads=torch.get_num_threads(), interop_threads=torch.get_num_interop_threads(),
                   parallel=torch.__config__.parallel_info().splitlines()[:4],
                   dynamo_suppress_errors=bool(dynamo_config.suppress_errors))
    elif backend == "jax":
        import jax

        out.update(devices=[str(d) for d in jax.devices()], x64=bool(jax.config.jax_enable_x64))
    elif backend == "tensorflow":
        import tensorflow as tf

        out.update(intra_op=tf.config.threading.get_intra_op_parallelism_threads(),
                   inter_op=tf.config.threading.get_inter_op_parallelism_threads())
    elif backend == "mlx":
        import mlx.core as mx

        out.update(device=str(mx.default_device()))
    return out


# ---------------------------------------------------------------- driver


def _kernel_inputs(entry: dict[str, Any]) -> tuple[Function, dict[str, Any], list[str]]:
    """The parsed kernel, its inputs (the same in every process: seeded by the kernel's
    label) and its C++ parameter names."""
    fn = parse_c_file(Path(entry["path"]))
    rng = np.random.default_rng(zlib.crc32(entry["label"].encode()))
    inputs = _inputs(fn, SETUP[entry["label"]], rng)
    assert fn.cxx is not None
    return fn, inputs, [v if isinstance(v, str) else v.name for v in fn.cxx.signature]


def _time_kernel(runner: str, entry: dict[str, Any], reps: int, workdir: Path,
                 modules: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """``runner``'s measurement of one kernel (``None``: the runner has no code for it);
    ``modules``: see :func:`time_backend`."""
    label = entry["label"]
    fn, inputs, params = _kernel_inputs(entry)
    r: dict[str, Any] = {}
    try:
        if runner == "cxx":
            r["samples"] = time_cxx(fn, inputs, reps, workdir)
        elif runner in entry["code"]:
            r = time_backend(entry["code"][runner], entry["function"], runner, inputs, params, reps, modules)
            if runner == "numpy" and label in REFERENCE:
                r["reference"] = samples_of(lambda f=REFERENCE[label], x=inputs: f(x), reps)
            if runner == "numpy" and label in ELEMENTWISE:
                arrays = [np.asarray(x) for x in inputs.values() if isinstance(x, np.ndarray)]
                src = np.concatenate([x.reshape(-1).view(np.uint8) for x in arrays])
                dst = np.empty_like(src)
                r["bytes"] = int(src.nbytes)
                r["copyto"] = samples_of(lambda src=src, dst=dst: np.copyto(dst, src), reps)
        else:
            return None
    except Exception as e:  # a framework missing here, or a bug to report
        r = {"error": f"{type(e).__name__}: {e}"}
    return r


#: The module each backend runner imports before it says it is ready.
RUNNER_MODULES = {"torch": "torch", "jax": "jax", "tensorflow": "tensorflow", "mlx": "mlx.core"}


def worker(runner: str, manifest: Path, reply_fd: int) -> int:
    """The process of one runner (``cxx`` or a backend), so that thread pools do not fight:
    imports its library, replies ``{"ready": true}``, then times each kernel whose label
    arrives on stdin (one per line) and replies its measurement (:func:`_time_kernel`) as a
    JSON line on the file descriptor ``reply_fd``; an empty line or the end of stdin ends it,
    after a last reply ``{"environment", "threads"}``. Between requests it waits on stdin:
    idle, no thread of its own running while another runner is timed."""
    m = json.loads(manifest.read_text())
    reps = m["reps"]
    kernels = {e["label"]: e for e in m["kernels"]}
    modules: dict[str, dict[str, Any]] = {}
    with os.fdopen(reply_fd, "w") as reply, tempfile.TemporaryDirectory(prefix="tenspiler-speed-") as tmp:
        if runner in RUNNER_MODULES:
            with contextlib.suppress(Exception):  # reported per kernel, when its code runs
                importlib.import_module(RUNNER_MODULES[runner])
        reply.write(json.dumps({"ready": True}) + "\n")
        reply.flush()
        for line in sys.stdin:
            label = line.strip()
            if not label:
                break
            reply.write(json.dumps(_time_kernel(runner, kernels[label], reps, Path(tmp), modules)) + "\n")
            reply.flush()
        threads = library_threads(runner) if runner != "cxx" else {}
        reply.write(json.dumps({"environment": machine_environment(), "threads": threads}) + "\n")
    return 0


def _lift_one(path: str, backends: list[str]) -> dict[str, Any]:
    """``{"function", "code": {backend: text}}`` of one kernel (Python-hosted backends only),
    or ``{"error"}``."""
    try:
        res = tenspiler.lift(Path(path), to=backends)
    except TenspilerError as e:
        return {"error": str(e).splitlines()[0]}
    return {"function": res.function,
            "code": {b: t for b, t in res.code.items()
                     if b in backends and not t.lstrip().startswith(("//", "/*"))}}


def lift_all(suites: list[str], backends: list[str]) -> list[dict[str, Any]]:
    """Every kernel of ``suites`` with a :data:`SETUP`, lifted (through the result cache) to
    ``backends``: ``{"suite", "label", "path", "function", "code": {backend: text}}``, or
    ``"error"``. Each kernel is lifted in a fresh process: synthesis forks, and a process
    that has loaded JAX (for the ``--check`` of a previous kernel) must not fork."""
    kernels: list[dict[str, Any]] = []
    spawn = multiprocessing.get_context("spawn")
    for suite in suites:
        for path in sorted((KERNELS / suite).glob("*.cc")):
            if path.stem not in SETUP:
                continue
            print(f"lifting {suite}/{path.name}", file=sys.stderr, flush=True)
            entry: dict[str, Any] = {"suite": suite, "path": str(path), "function": path.stem, "code": {}}
            try:
                with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
                    entry.update(pool.submit(_lift_one, str(path), backends).result())
            except Exception as e:  # the lifting process died: a bug to report
                entry["error"] = f"{type(e).__name__}: {e}"
            labels = [path.stem] + (["matmul_ffn"] if path.stem == "matmul" else [])
            kernels += [{**entry, "label": label} for label in labels if label in SETUP]
    return kernels


def _merge_rounds(before: dict[str, Any] | None, now: dict[str, Any]) -> dict[str, Any]:
    """One runner's measurement of one kernel over the rounds so far: the sample lists
    concatenated; a kernel that failed in any round keeps the error; a jit entry counts as
    compiled only if it compiled in every round."""
    if before is None or "error" in before:
        return before if before is not None else now
    if "error" in now:
        return now
    m = dict(before)
    for k, v in now.items():
        if isinstance(v, list) and isinstance(before.get(k), list):
            m[k] = before[k] + v
        elif k == "jit_status" and isinstance(before.get(k), dict):
            m[k] = dict(before[k], compiled=before[k]["compiled"] and v["compiled"])
            if not v["compiled"]:
                m[k]["why"] = v.get("why")
    return m


class Runner:
    """The process of one runner (:func:`worker`): ``ask(label)`` times a kernel there."""

    def __init__(self, name: str, manifest: Path, env: dict[str, str]) -> None:
        self.name = name
        self.error: str | None = None
        read_fd, write_fd = os.pipe()
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", name, "--manifest", str(manifest), "--reply-fd", str(write_fd)],
            stdin=subprocess.PIPE, text=True, env=env, pass_fds=(write_fd,))
        os.close(write_fd)
        self.replies = os.fdopen(read_fd)

    def _reply(self) -> dict[str, Any] | None:
        line = self.replies.readline()
        if not line:
            self.error = f"the {self.name} process exited with {self.proc.wait()}"
            return None
        return json.loads(line)

    def ready(self) -> None:
        """Waits until the process has loaded its library (imports are CPU-heavy: none may
        run while another runner is timed)."""
        self._reply()

    def ask(self, label: str) -> dict[str, Any] | None:
        """The runner's measurement of ``label`` (``None``: no code for it, or the process died)."""
        if self.error is not None:
            return None
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(label + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.error = f"the {self.name} process exited with {self.proc.wait()}"
            return None
        return self._reply()

    def finish(self) -> dict[str, Any]:
        """``{"environment", "threads"}`` (or ``{"error"}``), after which the process ends."""
        if self.error is None:
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.write("\n")
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
            last = self._reply()
            self.proc.wait()
            if last is not None:
                return last
        return {"error": self.error}


def _stats(samples: list[float]) -> dict[str, float]:
    """Best, median and spread ((max - min) / median) of per-call seconds."""
    xs = sorted(samples)
    med = statistics.median(xs)
    return {"best": xs[0], "median": med, "spread": (xs[-1] - xs[0]) / med if med > 0 else 0.0}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", default="blend,llama,speed", help="suites (folders of benchmarks/kernels) to time")
    ap.add_argument("--backends", default="", help="comma-separated (default: every registered Python backend that imports)")
    ap.add_argument("--reps", type=int, default=5, help="samples per measurement and round")
    ap.add_argument("--rounds", type=int, default=4,
                    help="times every kernel is timed by every runner, the runners taking turns kernel by "
                         "kernel: a drift in the machine's speed then falls on every runner alike")
    ap.add_argument("--heap", choices=("warm", "default"), default="warm",
                    help="warm: every runner keeps the memory it frees (glibc MALLOC_* variables, "
                         "see WARM_HEAP), so page faults do not decide the times; default: glibc's own settings")
    ap.add_argument("--json", type=Path, help="also write the measurements and the environment as JSON")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--manifest", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--reply-fd", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker, args.manifest, args.reply_fd)
    suites = [s.strip() for s in args.kernels.split(",") if s.strip()]
    backends = [b for b in (args.backends.split(",") if args.backends else backend_names()) if b]
    kernels = lift_all(suites, backends)
    report: dict[str, Any] = {"command": " ".join(sys.argv), "reps": args.reps, "runners": {}, "kernels": []}
    report["rounds"] = args.rounds
    report["heap"] = args.heap
    env = dict(os.environ)
    if args.heap == "warm":
        env = {**WARM_HEAP, **env}
    timed = [k for k in kernels if "error" not in k]
    results: dict[str, dict[str, Any]] = {runner: {} for runner in ["cxx", *backends]}
    with tempfile.TemporaryDirectory(prefix="tenspiler-speed-") as tmp:
        manifest = Path(tmp) / "manifest.json"
        manifest.write_text(json.dumps({"reps": args.reps, "kernels": timed}))
        runners = [Runner(name, manifest, env) for name in ["cxx", *backends]]
        for r in runners:
            r.ready()
        for rnd in range(1, args.rounds + 1):
            # every kernel timed by each runner in turn, back to back: a drift in the
            # machine's speed falls on all of them alike; the order of the runners reverses
            # every round
            order = runners if rnd % 2 else runners[::-1]
            for k in timed:
                label = k["label"]
                print(f"round {rnd}/{args.rounds}: {label:18} " + " ".join(r.name for r in order),
                      file=sys.stderr, flush=True)
                for r in order:
                    got = r.ask(label)
                    if got is not None:
                        results[r.name][label] = _merge_rounds(results[r.name].get(label), got)
        for r in runners:
            report["runners"][r.name] = {**r.finish(), "results": results[r.name]}
    for k in kernels:
        row: dict[str, Any] = {"suite": k["suite"], "kernel": k["label"]}
        if "error" in k:
            row["error"] = k["error"]
        for runner, data in report["runners"].items():
            r = data.get("results", {}).get(k["label"])
            if r is not None:
                row["cxx_O3" if runner == "cxx" else runner] = r
        report["kernels"].append(row)
    _print_environment(report, backends)
    for row in report["kernels"]:
        _print_row(row, backends)
    _print_geomeans(report["kernels"], backends)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


ENTRIES = ("native", "jit")


def _native_stats(r: dict[str, Any]) -> dict[str, float]:
    """Statistics of the faster of a backend's entries (eager or jit, by median) on inputs
    already in its arrays."""
    return min((_stats(r[k]) for k in ENTRIES if k in r), key=lambda s: s["median"])


def _converted_stats(r: dict[str, Any]) -> dict[str, float]:
    """The same from NumPy inputs to a NumPy result."""
    keys = ("with_conversion", "jit_with_conversion")
    return min((_stats(r[k]) for k in keys if k in r), key=lambda s: s["median"])


def _ok(r: Any) -> bool:
    return isinstance(r, dict) and "error" not in r and "native" in r


def _print_environment(report: dict[str, Any], backends: list[str]) -> None:
    runners = report["runners"]
    env = next((d["environment"] for d in runners.values() if "environment" in d), {})
    print(f"# {report['command']}")
    print(f"# cpu {env.get('cpu_model')}, {env.get('usable_cpus')}/{env.get('cpus')} cores usable, {env.get('platform')}, "
          f"python {env.get('python')}, {env.get('cxx')}")
    print(f"# load average at the end {env.get('load_average')}; variables {env.get('variables') or 'none set'}")
    print(f"# versions {env.get('versions')}")
    rounds = report.get("rounds", 1)
    print(f"# each runner (g++ -O3 and every backend) timed in its own process, taking turns kernel by kernel "
          f"in {rounds} round(s); "
          f"times are the median of {report['reps']} x {rounds} samples (spread = (max - min) / median); "
          f"input arrays {ALIGNMENT}-byte aligned; heap {report.get('heap', 'default')}"
          + (" (freed memory kept in each process: the MALLOC_* variables above)" if report.get("heap") == "warm" else ""))
    for b in backends:
        d = runners.get(b, {})
        if "error" in d:
            print(f"# {b}: {d['error']}")
            continue
        t = d.get("threads", {})
        print(f"# {b} threads: " + ", ".join(f"{k} {v}" for k, v in t.items()))
        status = [(row["kernel"], row[b]["jit_status"]) for row in report["kernels"] if _ok(row.get(b)) and "jit_status" in row[b]]
        fell_back = [f"{k} ({s.get('why')})" for k, s in status if not s["compiled"]]
        if status:
            print(f"# {b} jit entries: {len(status) - len(fell_back)}/{len(status)} compiled"
                  + (f"; FELL BACK to eager: {', '.join(fell_back)}" if fell_back else ""))
    print()


def _print_row(row: dict[str, Any], backends: list[str]) -> None:
    if "error" in row or "samples" not in row.get("cxx_O3", {}):
        print(f"{row['suite']:6} {row['kernel']:18} {row.get('error') or row.get('cxx_O3')}")
        return
    c = _stats(row["cxx_O3"]["samples"])["median"]
    parts = [f"{row['suite']:6} {row['kernel']:18} g++ -O3 {c * 1e3:9.3f} ms"]
    for b in backends:
        r = row.get(b)
        if not isinstance(r, dict):
            continue
        if "error" in r:
            parts.append(f"{b}: {r['error'][:60]}")
            continue
        st = _native_stats(r)
        parts.append(f"{b} {st['median'] * 1e3:8.3f} ms ±{st['spread'] * 100:3.0f}% ({c / st['median']:6.1f}x;"
                     f" conv {c / _converted_stats(r)['median']:5.1f}x"
                     + (f"; eager {c / _stats(r['native'])['median']:5.1f}x, jit {c / _stats(r['jit'])['median']:5.1f}x"
               if "jit" in r else "")
                     + (" JIT FELL BACK" if not r.get("jit_status", {}).get("compiled", True) else "") + ")")
    n = row.get("numpy", {})
    if _ok(n) and "reference" in n:
        parts.append(f"direct library call {_stats(n['reference'])['median'] * 1e3:8.3f} ms")
    if _ok(n) and "copyto" in n:
        gbs = n["bytes"] / _stats(n["copyto"])["median"] / 1e9
        times = [(_native_stats(r)["median"], b) for b in backends if _ok(r := row.get(b))]
        t, b = min(times)
        parts.append(f"bytes/s: {b} {n['bytes'] / t / 1e9:5.1f} GB/s vs copyto {gbs:5.1f} GB/s")
    print("  ".join(parts), flush=True)


def _geomean(xs: list[float]) -> float:
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def _print_geomeans(rows: list[dict[str, Any]], backends: list[str]) -> None:
    print()
    timed = [r for r in rows if "samples" in r.get("cxx_O3", {})]
    for b in backends:
        ex, inc, best = [], [], []
        for row in timed:
            r = row.get(b)
            if _ok(r):
                c = _stats(row["cxx_O3"]["samples"])
                ex.append(c["median"] / _native_stats(r)["median"])
                inc.append(c["median"] / _converted_stats(r)["median"])
                best.append(c["best"] / _native_stats(r)["best"])
        if ex:
            print(f"geomean speed-up over g++ -O3, {b:10}: {_geomean(ex):7.2f}x excluding conversion, "
                  f"{_geomean(inc):7.2f}x including ({len(ex)} kernels; medians; best samples: {_geomean(best):.2f}x)")
    for b in backends:
        ratios = [(_converted_stats(r)["median"] / _native_stats(r)["median"], row["kernel"])
                  for row in timed if row["suite"] == "blend" and _ok(r := row.get(b))]
        if ratios and b != "numpy":
            worst, k = max(ratios)
            print(f"{b:10} on the {len(ratios)} blend kernels: including conversion / excluding: geomean "
                  f"{_geomean([x for x, _ in ratios]):.2f}, largest {worst:.2f} ({k})")
    best_all, slower = [], []
    for row in timed:
        c = _stats(row["cxx_O3"]["samples"])["median"]
        cands = [(c / _native_stats(r)["median"], b) for b in backends if _ok(r := row.get(b))]
        if cands:
            x, b = max(cands)
            best_all.append(x)
            if x < 1:
                slower.append(f"{row['kernel']} (best {b} {x:.2f}x)")
    if best_all:
        print(f"best backend per kernel: geomean {_geomean(best_all):.2f}x over g++ -O3; kernels slower than the "
              f"source on every backend: {len(slower)}" + (f": {', '.join(slower)}" if slower else ""))
    n1 = [(row["kernel"], _stats(row["cxx_O3"]["samples"])["median"] / _native_stats(row["numpy"])["median"])
          for row in timed if _ok(row.get("numpy")) and _stats(row["cxx_O3"]["samples"])["median"] >= 1e-3]
    if n1:
        below = [f"{k} {x:.2f}x" for k, x in n1 if x < 1]
        print(f"numpy on the {len(n1)} kernels taking >= 1 ms in C++: slowest {min(x for _, x in n1):.2f}x"
              + (f"; below 1x: {', '.join(below)}" if below else "; none below 1x"))


if __name__ == "__main__":
    sys.exit(main())
