"""The ``<fn>_host.py`` text: the host part of a TPC lowering, in Python/NumPy.

It defines the function ``fn`` with the NumPy backend's calling convention and results (C
parameters in C order, or the C++ / Python signature; returns the outputs in summary order),
and computes them by

* setting up the device tensors: the input arrays in C storage types (int32 / uint8 /
  float32) and 1-D *views* of them (``take``/``tail``/``slice`` ranges), an output buffer that
  starts as a copy of the output array;
* computing the host values the kernels need (:class:`~tenspiler.codegen.split.HostValue`,
  NumPy code from the NumPy backend's rules), lazily and once;
* launching each kernel through the launcher given to ``set_device`` (for ``--check``:
  :class:`~tenspiler.codegen.tpc_c.emulation.EmulatedDevice`; on a Gaudi: an adapter to the
  Habana runtime), and combining reduction partials;
* evaluating what runs on the host with NumPy.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping, Sequence
from typing import assert_never

from tenspiler.codegen.base import returned_outputs
from tenspiler.codegen.numpy_backend import (
    HELPER_NAMES,
    NUMPY,
    cxx_adapter,
    helper_texts,
    return_value,
    store_value,
)
from tenspiler.codegen.preconditions import proof_preconditions
from tenspiler.codegen.python_host import (
    REPR,
    STORED,
    EmitContext,
    bare,
    fresh_name,
    indent,
    param_dtype,
)
from tenspiler.codegen.split import DeviceKernel, Split
from tenspiler.codegen.tpc_c.kernel import KernelSignature, view_array
from tenspiler.errors import CodegenError
from tenspiler.ir.printer import show, show_output
from tenspiler.ir.terms import (
    ArrayOutput,
    Matrix,
    ProgramSummary,
    ScalarOutput,
    Slice,
    Tail,
    Take,
    TensorVar,
    Term,
    children,
    free_vars,
)
from tenspiler.loops.ir import DType, Function, PointerType, ScalarType

#: NumPy storage type of each element dtype on the device.
DEVICE_STORAGE: dict[DType, str] = {DType.INT: "int32", DType.UINT8: "uint8", DType.FLOAT: "float32"}

#: Names the generated module defines; parameters with these names get a trailing underscore.
HOST_NAMES = frozenset(
    {*HELPER_NAMES, "KERNELS", "set_device", "_device", "_launch", "_view", "_storage", "_wrap32", "_memo",
     "float", "len", "RuntimeError"}
)

_HELPERS = '''\
_device = None


def set_device(device):
    """Run the kernels with ``device``: an object with ``launch(kernel, tensors, scalars,
    index_space)`` (see the module docstring)."""
    global _device
    _device = device


def _launch(kernel, tensors, scalars, length):
    """Launch ``KERNELS[kernel]`` over ``length`` elements: ceil(length / block) index-space
    elements (nothing to do when empty)."""
    if length <= 0:
        return
    if _device is None:
        raise RuntimeError("no TPC device: call set_device(...) with a launcher first")
    block = KERNELS[kernel]["block"]
    _device.launch(KERNELS[kernel]["name"], tensors, scalars, (-(-length // block),))


def _view(a, lo, hi, what):
    """``a[lo:hi]`` (``hi=None``: to the end) as a view; the proof assumes 0 <= lo <= hi <= len."""
    hi = a.shape[0] if hi is None else hi
    if not 0 <= lo <= hi <= a.shape[0]:
        raise ValueError(f"precondition violated: need 0 <= {lo} <= {hi} <= len({what}) = {a.shape[0]}")
    return a[lo:hi]


def _storage(a, dtype, what):
    """``a`` as a contiguous 1-D array of the device element type ``dtype`` (int32 / uint8 /
    float32); integer values must fit."""
    x = np.asarray(a).reshape(-1)
    if np.dtype(dtype).kind in "iu" and x.size:
        info = np.iinfo(dtype)
        if x.dtype.kind == "f":
            x = np.trunc(x)
        if x.min() < info.min or x.max() > info.max:
            raise ValueError(f"{what}: values outside {np.dtype(dtype).name}")
    return np.ascontiguousarray(x, dtype=dtype)


def _wrap32(s):
    """An integer modulo 2**32 as int32: lane partial sums wrap like C int additions, so the
    total is exact whenever the C sum does not overflow."""
    return (int(s) + 2**31) % 2**32 - 2**31'''


def host_file(
    fn: Function,
    ps: ProgramSummary,
    split: Split,
    sigs: Sequence[KernelSignature],
    summary_text: str,
) -> tuple[str, tuple[str, ...]]:
    """The host module's text and the entry's parameter names (as ``GeneratedCode.params``)."""
    return _Host(fn, ps, split, {s.kernel.name: s for s in sigs}, summary_text).module()


class _Host:
    def __init__(
        self, fn: Function, ps: ProgramSummary, split: Split, sigs: Mapping[str, KernelSignature], summary: str
    ) -> None:
        self.fn, self.ps, self.split, self.sigs, self.summary = fn, ps, split, sigs, summary
        taken = set(HOST_NAMES)
        self.names: dict[str, str] = {}
        for p in fn.params:
            name = p.name
            while keyword.iskeyword(name) or name in taken or name.startswith(("_k", "_h")):
                name += "_"
            taken.add(name)
            self.names[p.name] = name
        self.taken = taken
        dtypes: dict[str, DType] = {}
        for p in fn.params:
            dtypes[p.name] = p.type.elem if isinstance(p.type, PointerType) else p.type.dtype
        names: dict[str, str] = dict(self.names)
        for k in split.kernels:
            names[k.name] = f"_{k.name}()"
            dtypes[k.name] = k.dtype
        for h in split.host_values:
            names[h.name] = f"_{h.name}()"
            dtypes[h.name] = h.source.dtype
        self.ctx = EmitContext(names, dtypes)

    # ------------------------------------------------------------ rendering

    def render(self, t: Term) -> str:
        return bare(NUMPY.render(t, self.ctx))

    def device_array(self, t: TensorVar) -> str:
        return f'_dev["{t.name}"]'

    def view(self, t: Term) -> str:
        """A view term as nested ``_view`` calls on the device copy of its array."""
        match t:
            case TensorVar(name):
                return f'_dev["{name}"]'
            case Take(x, n):
                return f'_view({self.view(x)}, 0, {self.render(n)}, "{show(x)}")'
            case Tail(x, n):
                return f'_view({self.view(x)}, {self.render(n)}, None, "{show(x)}")'
            case Slice(x, lo, hi):
                return f'_view({self.view(x)}, {self.render(lo)}, {self.render(hi)}, "{show(x)}")'
        raise CodegenError(f"tpc_c: {show(t)} is not a view")

    # ------------------------------------------------------------ pieces

    def kernel_fn(self, k: DeviceKernel) -> str:
        s = self.sigs[k.name]
        lines: list[str] = []
        args: list[str] = []
        first_input: str | None = None
        for i, p in enumerate(s.tensors):
            var = f"t{i}"
            if p.role == "input":
                if p.host_value is not None:
                    src = f'_storage(_{p.host_value}(), np.{DEVICE_STORAGE[p.dtype]}, "{p.host_value}")'
                else:
                    assert p.view is not None
                    src = self.view(p.view)
                lines.append(f"{var} = {src}  # {p.name}: {p.source}")
                first_input = first_input or var
            elif p.role == "output":
                assert k.output is not None
                lo, hi = self.render(k.output.lo), self.render(k.output.hi)
                lines.append(f'{var} = _view(_out, {lo}, {hi}, "{k.output.array}")  # {p.name}: {p.source}')
            else:
                assert first_input is not None
                ident = {("reduce_sum", "i32"): "0", ("reduce_sum", "f32"): "0.0",
                         ("reduce_max", "i32"): "-(2**31)", ("reduce_max", "f32"): "-np.inf"}[(k.kind, s.partial_lane)]
                lines.append(f"length = {first_input}.shape[0]")
                storage = "float32" if s.partial_lane == "f32" else "int32"
                lines.append(
                    f"{var} = np.full(-(-length // {s.block}) * {s.block}, {ident}, dtype=np.{storage})  # {p.name}"
                )
            args.append(var)
        scalars: list[str] = []
        for sp in s.scalars:
            if sp.kind == "length":
                scalars.append("length")
                continue
            value = self.names[sp.source] if sp.kind == "param" else f"_{sp.source}()"
            scalars.append(f"int({value})" if sp.lane == "i32" else f"float(np.float32({value}))")
        if k.kind == "map":
            out_var = next(f"t{i}" for i, p in enumerate(s.tensors) if p.role == "output")
            lines.append(f'_launch("{k.name}", [{", ".join(args)}], [{", ".join(scalars)}], {out_var}.shape[0])')
            head = f"def _{k.name}(_out):"
            assert k.output is not None
            doc = f'"""{k.name}: writes {show_output(k.output)} (device term: {show(k.term)})."""'
            return "\n".join([head, indent("\n".join([doc, *lines]))])
        lines.append(f'_launch("{k.name}", [{", ".join(args)}], [{", ".join(scalars)}], length)')
        part = args[-1]
        if k.kind == "reduce_sum":
            total = f"_wrap32(np.sum({part}, dtype=np.int64))" if s.partial_lane == "i32" else f"np.sum({part}, dtype=np.float64)"
        else:
            lines.append(f'if length == 0:\n    raise ValueError("reduce_max of an empty tensor ({show(k.term)})")')
            total = f"np.max({part})"
        lines.append(f"value = {_to_dtype(total, s.partial_lane, k.dtype)}")
        partials = "sums" if k.kind == "reduce_sum" else "maxima"
        doc = f'"""{k.name}: {show(k.source)} (partial {partials} on the device, combined here)."""'
        body = [
            doc,
            f'if "{k.name}" not in _memo:',
            indent("\n".join([*lines, f'_memo["{k.name}"] = value'])),
            f'return _memo["{k.name}"]',
        ]
        return "\n".join([f"def _{k.name}():", indent("\n".join(body))])

    def host_value_fn(self, name: str) -> str:
        h = self.split.host_value(name)
        return "\n".join([
            f"def _{h.name}():",
            indent("\n".join([
                f'"""{h.name} = {show(h.source)} (host: {h.reason})."""',
                f'if "{h.name}" not in _memo:',
                f'    _memo["{h.name}"] = {self.render(h.term)}',
                f'return _memo["{h.name}"]',
            ])),
        ])

    def output_code(self, o: ArrayOutput | ScalarOutput) -> tuple[list[str], str, str]:
        placement = next(p for p in self.split.placements if p.output == o)
        comment = f"# {show_output(o)}\n# -> {placement.where}" + (
            f" (kernels {', '.join(placement.kernels)})" if placement.kernels else ""
        )
        match o:
            case ArrayOutput(array, lo, hi, value):
                elem = param_dtype(self.fn, array)
                out = self.fresh(f"{array}_new")
                src = self.names[array]
                if placement.host_term is None:
                    k = next(k for k in self.split.kernels if k.output == o)
                    lines = [
                        comment,
                        f'{out} = _storage({src}, np.{DEVICE_STORAGE[elem]}, "{array}").copy()',
                        f"_{k.name}({out})",
                    ]
                    if DEVICE_STORAGE[elem] != STORED[elem]:
                        lines.append(f"{out} = {out}.astype(np.{STORED[elem]})")
                    return lines, out, f"{array}: np.{STORED[elem]} array"
                copy = f"{src}.copy()" if REPR[elem] == STORED[elem] else f"{src}.astype(np.{STORED[elem]})"
                lo_s, hi_s = self.render(lo), self.render(hi)
                v = bare(store_value(NUMPY.render(placement.host_term, self.ctx), value.dtype, elem))
                lines = [
                    comment,
                    f'_view({src}, {lo_s}, {hi_s}, "{array}")  # the range the proof assumes',
                    f"{out} = {copy}",
                    f"{out}[{lo_s}:{hi_s}] = {v}",
                ]
                return lines, out, f"{array}: np.{STORED[elem]} array"
            case ScalarOutput(_, value):
                ret = self.fn.return_dtype
                assert ret is not None and placement.host_term is not None
                out = self.fresh("result")
                v = return_value(NUMPY.render(placement.host_term, self.ctx), value.dtype, ret)
                return [comment, f"{out} = {v}"], out, f"return value (C {ret.c_name})"
            case _:
                assert_never(o)

    def fresh(self, base: str) -> str:
        return fresh_name(base, self.taken)

    def guards(self) -> list[str]:
        """The proof's preconditions (:mod:`tenspiler.codegen.preconditions`): the loops' trip
        counts, each literally, and the summary's shape preconditions; then range checks of
        the take/tail/slice reads and matrix views the host itself evaluates (the device
        views check their ranges in ``_view``)."""
        checks: list[str] = []

        def check(cond_text: tuple[str, str]) -> str:
            cond, text = cond_text
            return f"if not ({cond}):\n    raise ValueError({text!r})"

        for pre in proof_preconditions(self.fn, self.ps):
            checks.append(check(NUMPY.precondition_check(pre, self.ctx)))

        def visit(t: Term) -> None:
            if not free_vars(t) <= set(self.names):
                pass  # reads a device kernel's or a host value's result: checked where computed
            elif isinstance(t, Take | Tail) and isinstance(t.tensor, TensorVar):
                checks.append(f'_view({self.names[t.tensor.name]}, 0, {self.render(t.n)}, "{t.tensor.name}")')
            elif isinstance(t, Slice) and isinstance(t.tensor, TensorVar):
                checks.append(f'_view({self.names[t.tensor.name]}, {self.render(t.lo)}, {self.render(t.hi)}, "{t.tensor.name}")')
            elif isinstance(t, Matrix) and t.stride is None:
                checks.append(check(NUMPY.matrix_check(self.ctx, t.tensor, t.rows, t.cols)))
            for c in children(t):
                visit(c)

        for p in self.split.placements:
            if p.host_term is not None:
                visit(p.host_term)
        for h in self.split.host_values:
            visit(h.term)
        return list(dict.fromkeys(checks))

    # ------------------------------------------------------------ the module

    def module(self) -> tuple[str, tuple[str, ...]]:
        fn = self.fn
        outputs = returned_outputs(self.ps)
        conversions: list[str] = []
        for p in fn.params:
            py = self.names[p.name]
            match p.type:
                case PointerType(elem):
                    conversions.append(f"{py} = np.asarray({py}, dtype=np.{REPR[elem]})")
                case ScalarType(dtype):
                    conversions.append(f"{py} = int({py})" if not dtype.is_float else f"{py} = np.{REPR[dtype]}({py})")
        used_arrays = sorted({view_array(p.view) for s in self.sigs.values() for p in s.tensors if p.view is not None})
        dev = ", ".join(
            f'"{a}": _storage({self.names[a]}, np.{DEVICE_STORAGE[param_dtype(self.fn, a)]}, "{a}")'
            for a in used_arrays
        )
        statements: list[str] = []
        results: list[str] = []
        returns_doc: list[str] = []
        for o in outputs:
            lines, res, doc = self.output_code(o)
            statements.append("\n".join(lines))
            results.append(res)
            returns_doc.append(doc)
        fns = [self.kernel_fn(k) for k in self.split.kernels] + [self.host_value_fn(h.name) for h in self.split.host_values]
        ret = "return None" if not results else f"return {', '.join(results)}"
        flat = fn.name if fn.cxx is None else f"_{fn.name}_flat"
        signature = f"{flat}({', '.join(self.names[p.name] for p in fn.params)})"
        doc = "\n".join([
            f'"""The C function `{fn.name}` with its device parts on the TPC (see the module docstring).',
            "",
            "Returns, in summary order:",
            *(f"    {r}" for r in returns_doc or ["None"]),
            '"""',
        ])
        setup = "\n".join([
            doc,
            *conversions,
            *self.guards(),
            "_memo = {}  # results of host values and reduction kernels, computed once",
            f"_dev = {{{dev}}}  # input arrays in device storage types" if dev else "_dev = {}",
        ])
        body = [setup, *fns, *statements, ret]
        parts = [self.module_doc(signature), "import numpy as np\n\n" + self.kernels_table(), _HELPERS,
                 *self.numpy_helpers(), f"def {signature}:\n" + indent("\n\n".join(body))]
        if fn.cxx is not None:
            parts.append(cxx_adapter(fn, self.ps, flat, self.names))
        params = tuple(p.name for p in fn.params)
        if fn.cxx is not None:
            params = tuple(v if isinstance(v, str) else v.name for v in fn.cxx.signature)
        return "\n\n\n".join(parts).rstrip("\n") + "\n", params

    def numpy_helpers(self) -> list[str]:
        """The NumPy backend's C-semantics helpers (``_c_idiv`` …) the host terms use."""
        return helper_texts(self.ctx.helpers)

    def kernels_table(self) -> str:
        rows = []
        for s in self.sigs.values():
            tensors = ", ".join(f'("{t.name}", "{DEVICE_STORAGE[t.dtype]}", "{t.role}")' for t in s.tensors)
            scalars = ", ".join(f'("{p.name}", "{p.c_type}")' for p in s.scalars)
            rows.append(
                f'    "{s.kernel.name}": {{\n'
                f'        "name": "{s.c_name}",\n'
                f'        "index": {s.index},\n'
                f'        "kind": "{s.kernel.kind}",\n'
                f'        "block": {s.block},\n'
                f"        \"tensors\": [{tensors}],\n"
                f"        \"scalars\": [{scalars}],\n"
                "    },"
            )
        table = "\n".join(rows)
        return (
            "#: The device kernels (<fn>.tpc.c): runtime name, TENSPILER_KERNEL index, kind, tensor\n"
            "#: elements per index-space element (block), tensor parameters (name, element type, role)\n"
            "#: and scalar parameters (name, C type), in `main` order.\n"
            f"KERNELS = {{\n{table}\n}}" if rows else "#: No device kernels: everything runs on the host.\nKERNELS = {}"
        )

    def module_doc(self, signature: str) -> str:
        fn = self.fn
        split_lines: list[str] = []
        for p in self.split.placements:
            split_lines.append(f"  {show_output(p.output)}")
            split_lines.append(f"    {p.where}" + (f" (kernels {', '.join(p.kernels)})" if p.kernels else ""))
            split_lines.extend(f"    - {n}" for n in p.notes)
        lang = "Python" if fn.python is not None else "C" if fn.cxx is None else "C++"
        summary = "\n".join(f"    {line}" for line in self.summary.splitlines())
        return f'''\
"""Host part of the TPC-C lowering of the {lang} function `{fn.name}`, generated by tenspiler from
its verified program summary (TensIR):

{summary}

Device/host split:
{chr(10).join(split_lines)}

Contract: `{signature}` has the calling convention and results of the NumPy backend's
`{fn.name}` (it never modifies its inputs; returns the outputs in summary order). It runs the
device kernels of `{fn.name}.tpc.c` through the launcher set with `set_device(device)`:
`device.launch(kernel, tensors, scalars, index_space)` gets the runtime name of the kernel
(KERNELS[...]["name"]), its tensor parameters as 1-D contiguous NumPy arrays in `main` order
(views into the host buffers; it must write the output / partial tensors in place), its scalar
parameters as Python numbers, and the index space (ceil(length / block),), block =
KERNELS[...]["block"] (64; 256 for a kernel with an unsigned char tensor). For tests,
tenspiler.codegen.tpc_c.emulation.EmulatedDevice runs the kernels compiled against
tpc_emulation.h; on a Gaudi, an adapter to the Habana runtime (not part of tenspiler) would.
The rest is NumPy, with the NumPy backend's rules (C semantics).
"""'''


def _to_dtype(expr: str, lane: str, dt: DType) -> str:
    if dt.is_float:
        return f"np.float32({expr})"
    if lane == "f32":
        return f"int(np.trunc({expr}))"
    return f"int({expr})"

