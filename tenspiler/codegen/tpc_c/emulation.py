"""Run generated TPC-C kernels on the host: compile them against ``tpc_emulation.h`` with the
system C compiler and call them through :mod:`ctypes`.

:class:`EmulatedDevice` is a launcher for the generated host part (``<fn>_host.py``,
``set_device``): ``launch(kernel, tensors, scalars, index_space)`` binds the NumPy arrays as
the kernel's tensor descriptors, splits dim 0 of the index space among ``members``
index-space members (as the Gaudi runtime splits it among TPC cores) and runs ``main`` once per
member with that member's ``get_index_space_offset()`` / ``get_index_space_size()``.

Each kernel is compiled once per process (cached by the hash of its source) into a shared
library with a generated harness::

    cc -O2 -std=gnu11 -fwrapv -ffp-contract=off -shared -fPIC -I<dir of tpc_emulation.h>
       -DTENSPILER_KERNEL=<i> -Dmain=tenspiler_kernel_main harness.c -lm

where ``harness.c`` includes the header, then the kernel file, then defines
``tenspiler_run(...)``. Misuse detected by the emulation (a tensor whose element type does not
match the intrinsic, an unknown switch) raises :class:`EmulationError`.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import hashlib
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tenspiler.errors import CodegenError
from tenspiler.runner import run_command

HEADER = Path(__file__).with_name("tpc_emulation.h")

#: Compiler flags: C semantics as in TPC-C (wrapping int32 lanes, binary32 floats without
#: contraction into FMA); a misspelt intrinsic or a wrongly typed operand is an error.
CFLAGS = (
    "-O2", "-std=gnu11", "-fwrapv", "-ffp-contract=off", "-fno-strict-aliasing", "-Wno-psabi",
    "-Werror=implicit-function-declaration", "-Werror=incompatible-pointer-types",
    "-Werror=int-conversion", "-shared", "-fPIC",
)

#: NumPy element type and tpc_emulation.h code of each tensor element type name.
DTYPES: dict[str, tuple[type[np.generic], int]] = {
    "float32": (np.float32, 1),
    "int32": (np.int32, 2),
    "uint8": (np.uint8, 3),
}


class EmulationError(RuntimeError):
    """The emulated kernel misused a tensor or an intrinsic."""


_LOCK = threading.Lock()
_LIBS: dict[str, Any] = {}


@functools.cache
def _workdir() -> Path:
    """One temporary folder per process for the compiled kernels, removed at exit."""
    d = Path(tempfile.mkdtemp(prefix="tenspiler-tpc-"))
    atexit.register(shutil.rmtree, d, True)
    return d


def harness_source(kernel_file: str, spec: Mapping[str, Any]) -> str:
    """The C harness that runs kernel ``spec`` (a ``KERNELS`` entry of the host part) of the
    kernel file ``kernel_file`` (path to ``#include``)."""
    nt = len(spec["tensors"])
    args = [str(i) for i in range(nt)]
    for i, (_name, ctype) in enumerate(spec["scalars"]):
        args.append(f"({ctype}) scalars[{i}]")
    return f"""\
/* tenspiler: emulation harness for {spec["name"]} */
#include "tpc_emulation.h"
#include "{kernel_file}"

int tenspiler_run(void **bufs, const int *sizes, const int *dtypes, const double *scalars,
                  int members, const int *offsets, const int *counts)
{{
    tpc_emu_reset();
    for (int t = 0; t < {nt}; t++)
        if (tpc_emu_bind(t, bufs[t], sizes[t], dtypes[t])) return -1;
    for (int m = 0; m < members; m++) {{
        tpc_emu_member(offsets[m], counts[m]);
        tenspiler_kernel_main({", ".join(args)});
        if (tpc_emu_error_message()[0]) return -1;
    }}
    (void) scalars;
    return 0;
}}

const char *tenspiler_error(void) {{ return tpc_emu_error_message(); }}
"""


def compile_kernel(source: str, spec: Mapping[str, Any], cc: str | None = None) -> Any:
    """The loaded library running kernel ``spec`` of the kernel file text ``source``
    (compiled once per process).

    Raises:
        CodegenError: the C compiler is missing or rejects the kernel (the message has its
            diagnostics).
    """
    compiler = cc or os.environ.get("CC") or "cc"
    key = hashlib.sha256(
        "\0".join([source, repr(sorted(spec.items())), HEADER.read_text(), compiler, *CFLAGS]).encode()
    ).hexdigest()[:24]
    with _LOCK:
        lib = _LIBS.get(key)
        if lib is not None:
            return lib
        d = _workdir() / key
        d.mkdir(exist_ok=True)
        (d / "kernel.tpc.c").write_text(source)
        (d / "harness.c").write_text(harness_source("kernel.tpc.c", spec))
        shutil.copy(HEADER, d / "tpc_emulation.h")
        cmd = [
            compiler, *CFLAGS, f"-I{d}", f"-DTENSPILER_KERNEL={int(spec['index'])}",
            "-Dmain=tenspiler_kernel_main", "harness.c", "-o", "kernel.so", "-lm",
        ]
        try:
            proc = run_command(cmd, 120, cwd=d)
        except FileNotFoundError:
            raise CodegenError(f"C compiler {compiler!r} not found (needed to emulate TPC kernels)") from None
        if proc.returncode != 0:
            raise CodegenError(
                f"the TPC kernel {spec['name']} does not compile against tpc_emulation.h:\n{proc.stderr.strip()}"
            )
        lib = ctypes.CDLL(str(d / "kernel.so"))
        lib.tenspiler_run.restype = ctypes.c_int
        lib.tenspiler_run.argtypes = [
            ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int),
            ctypes.POINTER(ctypes.c_double), ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int),
        ]
        lib.tenspiler_error.restype = ctypes.c_char_p
        _LIBS[key] = lib
        return lib


def split_index_space(n: int, members: int) -> list[tuple[int, int]]:
    """``(offset, size)`` of each member when ``n`` index-space elements go to ``members``
    members in contiguous slices (the first ones one longer); no empty slices."""
    m = max(1, min(members, n))
    base, extra = divmod(n, m)
    out, start = [], 0
    for i in range(m):
        size = base + (1 if i < extra else 0)
        if size:
            out.append((start, size))
        start += size
    return out


class EmulatedDevice:
    """A launcher (see the generated host part) that runs the kernels of one kernel file under
    ``tpc_emulation.h``.

    Args:
        source: the kernel file text (``<fn>.tpc.c``).
        kernels: the host part's ``KERNELS`` table (name, index, tensor and scalar types).
        members: how many index-space members share dim 0 (an int), or a function from the
            number of index-space elements to ``(offset, size)`` slices.
        cc: the C compiler (default ``$CC`` or ``cc``).
    """

    def __init__(
        self,
        source: str,
        kernels: Mapping[str, Mapping[str, Any]],
        members: int | Callable[[int], Sequence[tuple[int, int]]] = 3,
        cc: str | None = None,
    ) -> None:
        self.source = source
        self.specs = {spec["name"]: spec for spec in kernels.values()}
        self.members = members
        self.cc = cc
        self.launches: list[str] = []  # kernel names, in launch order (for tests)

    def launch(
        self,
        kernel: str,
        tensors: Sequence[np.ndarray],
        scalars: Sequence[int | float],
        index_space: Sequence[int],
    ) -> None:
        """Run ``kernel`` on ``tensors`` (1-D contiguous arrays of the kernel's element types;
        outputs are written in place) and ``scalars``, over ``index_space[0]`` vectors.

        Raises:
            TypeError / ValueError: arguments that do not fit the kernel's signature.
            EmulationError: the kernel misused a tensor or an intrinsic.
        """
        spec = self.specs[kernel]
        if len(tensors) != len(spec["tensors"]) or len(scalars) != len(spec["scalars"]):
            raise ValueError(f"{kernel}: expected {len(spec['tensors'])} tensors and {len(spec['scalars'])} scalars")
        codes = []
        for arr, (name, dtype, _role) in zip(tensors, spec["tensors"], strict=True):
            np_type, code = DTYPES[dtype]
            if not isinstance(arr, np.ndarray) or arr.dtype != np_type or arr.ndim != 1:
                raise TypeError(f"{kernel}: tensor {name} must be a 1-D {dtype} array")
            if not arr.flags.c_contiguous:
                raise ValueError(f"{kernel}: tensor {name} must be contiguous")
            codes.append(code)
        lib = compile_kernel(self.source, spec, self.cc)
        n = int(index_space[0])
        slices = (
            split_index_space(n, self.members) if isinstance(self.members, int) else list(self.members(n))
        )
        nt = len(tensors)
        bufs = (ctypes.c_void_p * max(nt, 1))(*[a.ctypes.data for a in tensors])
        sizes = (ctypes.c_int * max(nt, 1))(*[a.shape[0] for a in tensors])
        dts = (ctypes.c_int * max(nt, 1))(*codes)
        sc = (ctypes.c_double * max(len(scalars), 1))(*[float(s) for s in scalars])
        offs = (ctypes.c_int * max(len(slices), 1))(*[o for o, _ in slices])
        cnts = (ctypes.c_int * max(len(slices), 1))(*[c for _, c in slices])
        self.launches.append(kernel)
        if lib.tenspiler_run(bufs, sizes, dts, sc, len(slices), offs, cnts) != 0:
            raise EmulationError(f"{kernel}: {lib.tenspiler_error().decode()}")
