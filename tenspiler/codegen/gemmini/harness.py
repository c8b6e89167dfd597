"""Run a generated ``<fn>.gemmini.c`` with every Gemmini instruction executed by the oracle, and
check that the C file and the Gemmini assembly are the same program.

:func:`compile_recording` compiles the C file with ``-DTENSPILER_RECORD`` against the recording
header generated from the ISA description (:func:`tenspiler.act.record.recording_header`)::

    cc -O1 -std=gnu11 -fwrapv -ffp-contract=off -shared -fPIC -DTENSPILER_RECORD -I<tmp> kernel.c -lm

:class:`GemminiRunner` then calls the entry on inputs placed in one HBM buffer
(:class:`~tenspiler.act.oracle.HbmBuffer` whose addresses are the real addresses of its
bytes, so the C code's pointers are HBM addresses); ``TENSPILER_ALLOC`` allocates from the same
buffer. Each instruction the C code issues is executed at once by the
:class:`~tenspiler.act.oracle.Oracle` (so host code after a device call reads the device's
results) and recorded. The calls run in a forked child process kept between calls
(:class:`tenspiler.runner.Worker`; a new one after a crash), so that a crash of the compiled C
is reported as an error instead of ending the caller. Each device procedure announces its arguments
(``TENSPILER_PROC``); :meth:`GemminiRunner.call` replays the procedure in Python with those
arguments (:func:`~.schedule.run_proc`) and requires the recorded instructions to equal the
predicted ones — the assembly — instruction for instruction.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import hashlib
import os
import shutil
import struct
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, assert_never

import numpy as np

from tenspiler.act.assembly import Region, format_program, parse_program
from tenspiler.act.isa import Inst, IsaDescription
from tenspiler.act.isa.gemmini import gemmini_isa
from tenspiler.act.oracle import HbmBuffer, Oracle
from tenspiler.act.record import Recorder, recording_header
from tenspiler.act.schedule import Proc, run_proc
from tenspiler.errors import CodegenError
from tenspiler.runner import (
    Crashed,
    Raised,
    Returned,
    TimedOut,
    Worker,
    describe_error,
    run_command,
)

__all__ = ["CallResult", "GemminiRunner", "compile_recording"]

CFLAGS = ["-O1", "-std=gnu11", "-fwrapv", "-ffp-contract=off", "-shared", "-fPIC", "-DTENSPILER_RECORD"]
_LOCK = threading.Lock()
_CACHE: dict[str, ctypes.CDLL] = {}

#: NumPy storage and ctypes type of each C parameter type the generated entry uses
C_TYPES: dict[str, tuple[Any, Any]] = {
    "int": (np.int32, ctypes.c_int),
    "long": (np.int64, ctypes.c_long),
    "long long": (np.int64, ctypes.c_longlong),
    "unsigned char": (np.uint8, ctypes.c_ubyte),
    "signed char": (np.int8, ctypes.c_byte),
    "short": (np.int16, ctypes.c_short),
    "unsigned short": (np.uint16, ctypes.c_ushort),
    "unsigned int": (np.uint32, ctypes.c_uint),
    "float": (np.float32, ctypes.c_float),
    "double": (np.float64, ctypes.c_double),
}


@functools.cache
def _workdir() -> Path:
    """One temporary folder per process for the compiled C files, removed at exit."""
    d = Path(tempfile.mkdtemp(prefix="tenspiler-gemmini-"))
    atexit.register(shutil.rmtree, d, True)
    return d


def compile_recording(c_text: str, isa: IsaDescription) -> ctypes.CDLL:
    """The C file compiled against the recording header (cached per process by content).

    Raises:
        CodegenError: no C compiler, or compilation failed (with the compiler's messages).
    """
    header = recording_header(isa)
    key = hashlib.sha256((header + c_text).encode()).hexdigest()[:20]
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
        cc = os.environ.get("CC", "cc")
        if shutil.which(cc) is None:
            raise CodegenError(f"C compiler {cc!r} not found; cannot check the Gemmini C file")
        d = _workdir() / key
        d.mkdir(parents=True, exist_ok=True)
        (d / "tenspiler_record.h").write_text(header)
        (d / "kernel.c").write_text(c_text)
        lib = d / "kernel.so"
        proc = run_command([cc, *CFLAGS, f"-I{d}", "-o", str(lib), str(d / "kernel.c"), "-lm"], 600)
        if proc.returncode != 0:
            raise CodegenError(f"the generated Gemmini C file does not compile ({cc}, {proc.describe()}):\n{proc.stderr}")
        handle = ctypes.CDLL(str(lib))
        _CACHE[key] = handle
        return handle


@dataclass
class CallResult:
    """One run of the C entry.

    Attributes:
        state: ``{array parameter: final values, "return": value}``.
        instructions: every instruction issued, in order (HBM addresses).
        procs: ``(procedure, arguments)`` per device-procedure call, in order.
        fallbacks: device calls the host computed because their run-time contract failed.
        assembly: the program as Gemmini assembly text (regions: the parameters' arrays).
    """

    state: dict[str, Any]
    instructions: list[Inst]
    procs: list[tuple[str, dict[str, int | float]]]
    fallbacks: int
    assembly: str = ""
    regions: list[Region] = field(default_factory=list)


class GemminiRunner:
    """Calls the entry of a generated C file under the recording header.

    ``params``: ``(name, kind, C type)`` per C parameter in order (kind ``"ptr"`` or
    ``"scalar"``); ``ret``: the C return type or ``None``; ``procs``: the device procedures by
    name (to replay them).
    """

    def __init__(self, c_text: str, entry: str, params: Sequence[tuple[str, str, str]], ret: str | None,
                 procs: Mapping[str, Proc], dim: int, config: str) -> None:
        self.isa = gemmini_isa(dim, config)
        self.oracle = Oracle(self.isa)
        self.lib = compile_recording(c_text, self.isa)
        self.params, self.ret, self.procs = list(params), ret, dict(procs)
        self.func = getattr(self.lib, entry)
        self.func.argtypes = [ctypes.c_void_p if k == "ptr" else C_TYPES[t][1] for _, k, t in self.params]
        self.func.restype = None if ret is None else C_TYPES[ret][1]
        self.fallback_counter = ctypes.c_long.in_dll(self.lib, "tenspiler_gemmini_fallbacks")
        # one forked child for the calls (a fork per call cost ~40 ms; --check makes ~150)
        self._worker: Worker[Mapping[str, Any], CallResult] = Worker(self._call)

    def call(self, inputs: Mapping[str, Any]) -> CallResult:
        """Run the entry on ``inputs`` (arrays and scalars by parameter name), in the runner's
        forked child process: a crash of the compiled C (a bug of ours) is reported, not fatal
        (``TENSPILER_GEMMINI_INPROC=1`` runs it in this process, for debugging).

        Raises:
            CodegenError: the instructions the C code issued differ from the assembly its
                procedures predict, an instruction is invalid (oracle), the C code issued an
                instruction outside a device procedure, or it crashed.
            ValueError: an input its C type cannot hold.
        """
        if os.environ.get("TENSPILER_GEMMINI_INPROC"):
            return self._call(inputs)
        outcome = self._worker.call(dict(inputs))
        match outcome:
            case Returned(value=result):
                return result
            case Raised(error=e):
                if type(e) in (ValueError, CodegenError):
                    raise e
                raise CodegenError(describe_error(e)) from e
            case Crashed():
                why = f"signal {outcome.signal}" if outcome.signal else f"exit {outcome.returncode}"
                raise CodegenError(f"the Gemmini C file crashed ({why}) while running under the recording header")
            case TimedOut():  # pragma: no cover - no deadline is set
                raise CodegenError(f"the Gemmini C file did not return within {outcome.seconds:.3g} s")
            case _:
                assert_never(outcome)

    def _call(self, inputs: Mapping[str, Any]) -> CallResult:
        arrays = {n: _storage(n, inputs[n], t) for n, k, t in self.params if k == "ptr"}
        total = sum(a.nbytes + 64 for a in arrays.values())
        # room for the host's widened copies and the padded device operands (np.zeros is
        # lazily committed: untouched pages cost nothing)
        hbm = HbmBuffer(max(1 << 16, 64 * total + (1 << 26)))
        hbm.base = int(hbm.data.ctypes.data)
        cursor = [0]

        def alloc(nbytes: int) -> int:
            start = (cursor[0] + 63) // 64 * 64
            if start + nbytes > hbm.data.size:
                raise CodegenError(f"the HBM of the check ({hbm.data.size} bytes) is full")
            cursor[0] = start + nbytes
            return hbm.base + start

        addrs: dict[str, int] = {}
        regions: list[Region] = []
        for n, a in arrays.items():
            addrs[n] = alloc(max(a.nbytes, 1))
            hbm.write(addrs[n], a)
            regions.append(Region(n, addrs[n], a.nbytes, str(a.dtype)))
        state = self.oracle.new_state(hbm)
        issued: list[Inst] = []
        procs: list[tuple[str, dict[str, int | float], int]] = []

        def on_inst(inst: Inst) -> None:
            issued.append(inst)
            self.oracle.step(state, inst)

        def on_proc(name: str, raw: tuple[int, ...]) -> None:
            proc = self.procs[name]
            args: dict[str, int | float] = {}
            for p, v in zip(proc.params, raw, strict=True):
                args[p.name] = struct.unpack("<f", struct.pack("<I", v & 0xFFFFFFFF))[0] if p.kind == "float" else v
            procs.append((name, args, len(issued)))

        rec = Recorder(self.isa, on_inst, on_proc, alloc)
        rec.install(self.lib)
        self.fallback_counter.value = 0
        args = [addrs[n] if k == "ptr" else _scalar(inputs[n], t) for n, k, t in self.params]
        ret = self.func(*args)
        rec.raise_errors()
        self._check_assembly(issued, procs)
        out: dict[str, Any] = {n: hbm.read(addrs[n], arrays[n].size, arrays[n].dtype) for n in arrays}
        if self.ret is not None:
            out["return"] = ret
        base = hbm.base
        rebased = [self._rebase(i, base) for i in issued]
        text = format_program(self.isa, rebased, [Region(r.name, r.addr - base + 0x1000, r.size, r.dtype) for r in regions],
                              comment="recorded from the compiled C file; addresses: HBM base 0x1000")
        if parse_program(self.isa, text).instructions != tuple(rebased):
            raise CodegenError("the Gemmini assembly text does not parse back to the recorded program")
        return CallResult(out, issued, [(n, a) for n, a, _ in procs], int(self.fallback_counter.value), text, regions)

    def _check_assembly(self, issued: list[Inst], procs: list[tuple[str, dict[str, int | float], int]]) -> None:
        expected: list[Inst] = []
        for name, args, start in procs:
            if start != len(expected):
                raise CodegenError(f"the C file issued {start - len(expected)} instruction(s) outside a device procedure before {name}")
            expected.extend(run_proc(self.procs[name], args))
        if len(expected) != len(issued):
            raise CodegenError(f"the C file issued {len(issued)} instructions; its procedures' assembly has {len(expected)}")
        for i, (want, got) in enumerate(zip(expected, issued, strict=True)):
            if want != got:
                raise CodegenError(f"instruction {i}: the C file issued {got}, the assembly has {want}")

    def _rebase(self, inst: Inst, base: int) -> Inst:
        spec = self.isa.spec(inst.name)
        vals = tuple(v - base + 0x1000 if a.kind == "hbm" and v != 0 else v for a, v in zip(spec.attrs, inst.args, strict=True))
        return Inst(inst.name, vals)


def _storage(name: str, value: Any, ctype: str) -> np.ndarray:
    """``value`` as a C array of ``ctype``.

    Raises:
        ValueError: an integer the C type cannot hold (no silent wrap).
    """
    dt = np.dtype(C_TYPES[ctype][0])
    arr = np.asarray(value)
    if dt.kind in "iu" and arr.size:
        info = np.iinfo(dt)
        lo, hi = arr.min(), arr.max()
        if lo < info.min or hi > info.max:
            raise ValueError(f"{name}: values in [{lo}, {hi}] do not fit C {ctype}")
    return np.ascontiguousarray(arr, dtype=dt)


def _scalar(v: Any, ctype: str) -> int | float:
    if ctype in ("float", "double"):
        return float(v)
    dt = np.dtype(C_TYPES[ctype][0])
    if not np.iinfo(dt).min <= int(v) <= np.iinfo(dt).max:
        raise ValueError(f"{v} does not fit C {ctype}")
    return int(v)
