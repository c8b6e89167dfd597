"""Speed of the generated code against the C++ source it replaces (issue 5, paper §6.3).

    python benchmarks/speed.py [--kernels blend,llama] [--backends numpy,torch,...] [--reps 5]
                               [--json FILE]

For every blend kernel on a 1920×1080 uint8 image pair and every Llama kernel at llama-7B
shapes (4096-element vectors, 4096×4096 and 11008×4096 matrices), in one run:

* the original C++ kernel (``benchmarks/kernels/**/*.cc``) compiled with ``g++ -O3``, timed
  in C++ (``std::chrono``, best of ``--reps`` samples on vectors built once — the paper's
  setting; a sample averages as many calls as fit in ~1 ms, at most 1000, on both sides);
* the code generated for each available Python-hosted backend (``numpy``, and ``torch``,
  ``mlx``, ``tensorflow``, ``jax`` when installed and registered), best of ``--reps`` calls:
  *excluding* data conversion (inputs already in the framework's arrays; result
  materialised) and *including* it (NumPy inputs in, NumPy result out); plus the module's
  jit-compiled entry ``<name>_jit`` where it has one (warmed up once first).

Prints one row per kernel (times in ms and the speed-up = C++ time / backend time), the
geometric mean per backend, and for the elementwise kernels the bytes/s the fastest backend
achieves (input bytes / time) next to a plain ``numpy.copyto`` of the same bytes. Kernels are lifted through the result cache
(:mod:`tenspiler.cache`). This is a measurement, not a test: it never fails on slow code.
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import tenspiler
from tenspiler.codegen import backend_names
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


def _inputs(fn: Function, setup: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """The C++ view of the inputs: arrays of the configured shapes, scalars as given."""
    assert fn.cxx is not None
    out: dict[str, Any] = {}
    for v in fn.cxx.signature:
        if isinstance(v, VectorParam):
            shape = setup[v.name]
            if v.elem_cxx == "uint8_t":
                out[v.name] = rng.integers(0, 256, shape, dtype=np.uint8)
            else:
                out[v.name] = rng.standard_normal(shape).astype(np.float32 if v.elem_cxx == "float" else np.float64)
        else:
            p = fn.param(v)
            assert isinstance(p.type, ScalarType)
            out[v] = setup[v]
    return out


# ---------------------------------------------------------------- the C++ source, g++ -O3


def _cxx_timer_source(fn: Function) -> str:
    """``extern "C" double tenspiler_time(<flat args>, int reps)``: builds the vectors once
    and returns the best wall time of ``reps`` calls (seconds)."""
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
extern "C" double tenspiler_time({", ".join(params)}, int reps) {{
    {body}
    auto tenspiler_c0 = std::chrono::steady_clock::now();
    tenspiler_sink = tenspiler_touch({fn.name}({", ".join(call)}));
    double tenspiler_single = std::chrono::duration<double>(std::chrono::steady_clock::now() - tenspiler_c0).count();
    long tenspiler_inner = (long)(1e-3 / (tenspiler_single > 1e-7 ? tenspiler_single : 1e-7));
    tenspiler_inner = tenspiler_inner < 1 ? 1 : tenspiler_inner > 1000 ? 1000 : tenspiler_inner;
    double best = 1e30;
    for (int k = 0; k < reps; k++) {{
        auto t0 = std::chrono::steady_clock::now();
        for (long tenspiler_j = 0; tenspiler_j < tenspiler_inner; tenspiler_j++) {{
            auto res = {fn.name}({", ".join(call)});
            tenspiler_sink = tenspiler_touch(res);
        }}
        auto t1 = std::chrono::steady_clock::now();
        double s = std::chrono::duration<double>(t1 - t0).count() / tenspiler_inner;
        if (s < best) best = s;
    }}
    return best;
}}
"""


def time_cxx(fn: Function, inputs: dict[str, Any], reps: int, workdir: Path) -> float:
    """Best seconds of ``reps`` calls of the source compiled with ``g++ -O3``."""
    src = workdir / f"{fn.name}_timer.cc"
    lib = workdir / f"{fn.name}_timer.so"
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
    f.argtypes = [*argtypes, ctypes.c_int]
    f.restype = ctypes.c_double
    return float(f(*args, reps))


# ---------------------------------------------------------------- generated code


def best_of(call: Callable[[], Any], reps: int) -> float:
    """Best seconds per call over ``reps`` samples; a sample runs the call ``inner`` times
    (as many as fit in ~1 ms, at most 1000: timer overhead does not count for µs-scale
    kernels), exactly as the C++ timer does."""
    t0 = time.perf_counter()
    call()
    inner = max(1, min(1000, int(1e-3 / max(time.perf_counter() - t0, 1e-7))))
    best = math.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            call()
        best = min(best, (time.perf_counter() - t0) / inner)
    return best


def _to_numpy(x: Any) -> Any:
    if hasattr(x, "numpy") and not isinstance(x, np.ndarray):
        try:
            return x.numpy()
        except (TypeError, RuntimeError):
            return np.asarray(x)
    return np.asarray(x)


def _native(backend: str, x: Any) -> Any:
    """``x`` as the framework's array (scalars stay Python numbers)."""
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

        return jnp.asarray(x)
    return x


def _materialise(backend: str, r: Any) -> Any:
    """Wait for the result (lazy / asynchronous frameworks)."""
    if backend == "mlx":
        import mlx.core as mx

        mx.eval(r)
    elif backend == "jax" and hasattr(r, "block_until_ready"):
        r.block_until_ready()
    return r


def time_backend(res: Any, backend: str, inputs: dict[str, Any], params: list[str], reps: int) -> dict[str, float]:
    """``{"native": s, "with_conversion": s, "jit": s?, "jit_with_conversion": s?}`` (best
    seconds; ``*with_conversion``: NumPy inputs in, NumPy result out)."""
    code = res.code[backend]
    ns: dict[str, Any] = {"__name__": f"speed_{backend}"}
    exec(compile(code, f"<{backend}>", "exec"), ns)
    entry = ns[res.function]
    native = [_native(backend, inputs[p]) for p in params]

    def run(f: Callable[..., Any]) -> Callable[[], Any]:
        # eager NumPy / PyTorch / TensorFlow calls return finished results: time the call
        # alone; JAX and MLX dispatch asynchronously / lazily: wait for the result
        if backend in ("jax", "mlx"):
            return lambda: _materialise(backend, f(*native))
        return functools.partial(f, *native)

    out = {
        "native": best_of(run(entry), reps),
        "with_conversion": best_of(lambda: _to_numpy(entry(*[_native(backend, inputs[p]) for p in params])), reps),
    }
    jit = ns.get(f"{res.function}_jit")
    if callable(jit):
        _materialise(backend, jit(*native))  # compile once
        out["jit"] = best_of(run(jit), reps)
        out["jit_with_conversion"] = best_of(
            lambda: _to_numpy(jit(*[_native(backend, inputs[p]) for p in params])), reps
        )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", default="blend,llama,speed", help="suites (folders of benchmarks/kernels) to time")
    ap.add_argument("--backends", default="", help="comma-separated (default: every registered Python backend that imports)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", type=Path, help="also write the measurements as JSON")
    args = ap.parse_args()
    suites = [s.strip() for s in args.kernels.split(",") if s.strip()]
    backends = [b for b in (args.backends.split(",") if args.backends else backend_names()) if b]
    rng = np.random.default_rng(0)
    rows: list[dict[str, Any]] = []
    # every kernel is lifted first (lifting forks worker processes; forking after a jit
    # framework has started its threads can deadlock), then timed
    lifted: dict[Path, Any] = {}
    for suite in suites:
        for path in sorted((KERNELS / suite).glob("*.cc")):
            if path.stem in SETUP:
                try:
                    lifted[path] = tenspiler.lift(path, to=backends)
                except tenspiler.LiftError as e:
                    lifted[path] = e
    with tempfile.TemporaryDirectory(prefix="tenspiler-speed-") as tmp:
        for suite in suites:
            for path in sorted((KERNELS / suite).glob("*.cc")):
                variants = [(path.stem, path.stem)] + ([("matmul_ffn", "matmul")] if path.stem == "matmul" else [])
                for label, _ in variants:
                    if label not in SETUP:
                        continue
                    fn = parse_c_file(path)
                    inputs = _inputs(fn, SETUP[label], rng)
                    assert fn.cxx is not None
                    params = [v if isinstance(v, str) else v.name for v in fn.cxx.signature]
                    row: dict[str, Any] = {"suite": suite, "kernel": label}
                    row["cxx_O3"] = time_cxx(fn, inputs, args.reps, Path(tmp))
                    res = lifted[path]
                    if isinstance(res, tenspiler.LiftError):
                        row["error"] = str(res)
                        rows.append(row)
                        continue
                    for b in backends:
                        if b not in res.code or res.code[b].lstrip().startswith(("//", "/*")):
                            continue  # not Python-hosted (e.g. TPC-C)
                        try:
                            row[b] = time_backend(res, b, inputs, params, args.reps)
                        except Exception as e:  # a framework missing here, or a bug to report
                            row[b] = {"error": f"{type(e).__name__}: {e}"}
                    if label in REFERENCE:
                        row["reference"] = best_of(lambda f=REFERENCE[label], x=inputs: f(x), args.reps)
                    if label in ELEMENTWISE:
                        nbytes = sum(np.asarray(x).nbytes for x in inputs.values() if isinstance(x, np.ndarray))
                        src = np.concatenate([np.asarray(x).reshape(-1).view(np.uint8) for x in inputs.values() if isinstance(x, np.ndarray)])
                        dst = np.empty_like(src)
                        row["bytes"] = int(nbytes)
                        row["copyto"] = best_of(lambda src=src, dst=dst: np.copyto(dst, src), args.reps)
                    rows.append(row)
                    _print_row(row, backends)
    _print_geomeans(rows, backends)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


def _native_time(r: dict[str, float]) -> float:
    """Best seconds of a backend's entries (eager or jit) on inputs already in its arrays."""
    return min(v for k, v in r.items() if not k.endswith("with_conversion"))


def _converted_time(r: dict[str, float]) -> float:
    """Best seconds of a backend's entries (eager or jit) from NumPy inputs to a NumPy result."""
    return min(v for k, v in r.items() if k.endswith("with_conversion"))


def _print_row(row: dict[str, Any], backends: list[str]) -> None:
    c = row["cxx_O3"]
    parts = [f"{row['suite']:6} {row['kernel']:18} g++ -O3 {c * 1e3:9.2f} ms"]
    for b in backends:
        r = row.get(b)
        if not isinstance(r, dict):
            continue
        if "error" in r:
            parts.append(f"{b}: {r['error'][:60]}")
            continue
        best = _native_time(r)
        parts.append(f"{b} {best * 1e3:8.2f} ms ({c / best:6.1f}x; conv {c / _converted_time(r):5.1f}x"
                     + (f"; jit {c / r['jit']:5.1f}x" if "jit" in r else "") + ")")
    if "reference" in row:
        parts.append(f"direct library call {row['reference'] * 1e3:8.2f} ms")
    if "copyto" in row:
        gbs = row["bytes"] / row["copyto"] / 1e9
        times = [(_native_time(r), b) for b in backends
                 if isinstance(r := row.get(b), dict) and "error" not in r]
        if times:
            t, b = min(times)
            parts.append(f"bytes/s: {b} {row['bytes'] / t / 1e9:5.1f} GB/s vs copyto {gbs:5.1f} GB/s")
        else:
            parts.append(f"copyto {gbs:5.1f} GB/s")
    print("  ".join(parts), flush=True)


def _print_geomeans(rows: list[dict[str, Any]], backends: list[str]) -> None:
    print()
    best_all: list[float] = []
    for b in backends:
        ex, inc = [], []
        for row in rows:
            r = row.get(b)
            if isinstance(r, dict) and "error" not in r:
                ex.append(row["cxx_O3"] / _native_time(r))
                inc.append(row["cxx_O3"] / _converted_time(r))
        if ex:
            g = math.exp(sum(map(math.log, ex)) / len(ex))
            gi = math.exp(sum(map(math.log, inc)) / len(inc))
            print(f"geomean speed-up over g++ -O3, {b:10}: {g:7.2f}x excluding conversion, {gi:7.2f}x including ({len(ex)} kernels)")
    for row in rows:
        cands = [row["cxx_O3"] / _native_time(r)
                 for b in backends if isinstance(r := row.get(b), dict) and "error" not in r]
        if cands:
            best_all.append(max(cands))
    if best_all:
        g = math.exp(sum(map(math.log, best_all)) / len(best_all))
        slower = sum(1 for x in best_all if x < 1)
        print(f"best backend per kernel: geomean {g:.2f}x over g++ -O3; kernels slower than the source on every backend: {slower}")


if __name__ == "__main__":
    sys.exit(main())
