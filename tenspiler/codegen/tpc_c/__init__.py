"""The TPC-C backend (Intel Gaudi), registered as ``"tpc_c"``: ``lift FILE --to tpc_c``.

A verified summary is divided between the device and the host
(:func:`~tenspiler.codegen.split.split_summary` with :class:`~.rules.TpcRules`: what a TPC
kernel can compute exactly, and why the rest runs on the host), and three files are emitted:

* ``<fn>.tpc.c`` (:mod:`.kernel`) — the TPC-C kernels: ``void main(tensor ..., <scalars>)``
  walking their slice of a 1-D index space (``get_index_space_offset`` / ``_size``), 64-lane
  vector loads/stores (``v_f32_ld_tnsr_b`` / ``v_i32_st_tnsr`` …, ``int5`` coordinates; 8-bit
  tensors 256 elements at a time with the UNPACK / PACK switches) and the vector intrinsics of
  the element type (``v_f32_add_b``, ``v_i32_mul_b``, ``v_f32_sel_grt_f32_b``,
  ``v_convert_i32_to_f32_b`` …); exact integer division helpers. ``INTRINSICS.md`` lists each
  emitted intrinsic with the Habana source it was checked against.
* ``<fn>_glue.cpp`` (:mod:`.glue`) — the Habana custom-kernel glue (``GetKernelName``,
  ``GetGcDefinitions``: tensor checks, ``indexSpaceGeometry``, access patterns, scalar
  parameters). Plausible SDK code, not compiled here.
* ``<fn>_host.py`` (:mod:`.host`) — the host part: NumPy code with the NumPy backend's calling
  convention that sets up the tensors, computes what runs on the host and launches the kernels
  through a launcher (``set_device``).

``GeneratedCode.placement`` is the device/host split (``--json``: ``placement.tpc_c``);
``GeneratedCode.runner`` is the host part with the kernels under
:class:`~.emulation.EmulatedDevice` (compiled with ``cc`` against ``tpc_emulation.h``), which
``--check`` compares with the original C.
"""

from __future__ import annotations

from tenspiler.codegen.base import (
    GeneratedCode,
    Runner,
    decline_strided_outputs,
    output_term,
    returned_outputs,
)
from tenspiler.codegen.registry import register_backend
from tenspiler.codegen.split import Split, split_summary
from tenspiler.codegen.tpc_c.glue import glue_file
from tenspiler.codegen.tpc_c.host import host_file
from tenspiler.codegen.tpc_c.kernel import KernelFile, c_identifier, kernel_file
from tenspiler.codegen.tpc_c.rules import TpcRules
from tenspiler.errors import CodegenError
from tenspiler.ir.printer import show_output, show_summary
from tenspiler.ir.terms import (
    TENSOR_TYPES,
    ArrayOutput,
    Lit,
    ProgramSummary,
    ScalarOutput,
    ScalarVar,
    Size,
    TensorVar,
    Term,
    children,
    free_vars,
)
from tenspiler.loops.ir import DType, Function, Param, PointerType, ScalarType

__all__ = ["TPC_C", "TpcCBackend", "lower"]


def lower(fn: Function, ps: ProgramSummary) -> tuple[Split, KernelFile]:
    """The device/host split of ``ps`` for ``fn`` and the kernel file of its device part."""
    _validate(fn, ps)
    taken = {p.name for p in fn.params}
    split = split_summary(ps, TpcRules(fn), taken=taken)
    names: dict[str, str] = {}
    used: set[str] = set()
    for name in [p.name for p in fn.params] + [h.name for h in split.host_values]:
        names[name] = c_identifier(name, used)
        used.add(names[name])
    return split, kernel_file(fn, split, names, show_summary(ps))


class TpcCBackend:
    """Generates TPC-C kernels, their glue and the host part. Registered as ``"tpc_c"``."""

    name = "tpc_c"

    def supports(self, term: Term) -> bool:
        """True when one device kernel computes all of ``term`` (a tensor: elementwise; a
        scalar: a reduction whose partials the host only combines), for a C function whose
        parameters are the free variables of ``term``."""
        fn = _function_for(term)
        if isinstance(term, TENSOR_TYPES):  # (is_tensor, narrowing the type)
            out = ArrayOutput("__out", Lit(0, DType.INT), Size(TensorVar("__out", term.dtype)), term)
            s = split_summary(ProgramSummary(fn.name, (out,)), TpcRules(fn))
            return s.placements[0].where == "device"
        s = split_summary(ProgramSummary(fn.name, (ScalarOutput("return", term),)), TpcRules(fn))
        p = s.placements[0]
        kernels = {k.name for k in s.kernels}
        return isinstance(p.host_term, ScalarVar) and p.host_term.name in kernels and not s.host_values

    def generate(self, fn: Function, ps: ProgramSummary) -> GeneratedCode:
        decline_strided_outputs(ps, "TPC-C")
        split, kf = lower(fn, ps)
        summary = show_summary(ps)
        glue = glue_file(fn, kf.signatures)
        host, params = host_file(fn, ps, split, kf.signatures, summary)
        runner = (
            host
            + "\n\n# ---- tenspiler runner: the kernels run compiled against tpc_emulation.h\n"
            + "from tenspiler.codegen.tpc_c.emulation import EmulatedDevice as _EmulatedDevice  # noqa: E402\n\n"
            + f"_KERNEL_SOURCE = {kf.text!r}\n"
            + "set_device(_EmulatedDevice(_KERNEL_SOURCE, KERNELS))\n"
        )
        return GeneratedCode(
            backend=self.name,
            language="tpc-c",
            filename_suffix=".tpc.c",
            text=kf.text,
            entry=fn.name,
            params=params,
            extra_files=(("_glue.cpp", glue), ("_host.py", host)),
            runner=Runner(runner, "the TPC-C kernels compiled with cc against tpc_emulation.h, with the NumPy host part"),
            placement=split.to_json(),
        )


def _validate(fn: Function, ps: ProgramSummary) -> None:
    if ps.function != fn.name:
        raise CodegenError(f"summary of {ps.function!r} given for function {fn.name!r}")
    params = {p.name: p for p in fn.params}
    for param in fn.params:
        d = fn.dtype_of(param.name)
        if d.int_range is not None and d != DType.UINT8:
            raise CodegenError(f"tpc_c: no rule for {d.c_name} data ('{param.name}')")
    if fn.return_dtype is not None and fn.return_dtype.int_range is not None and fn.return_dtype != DType.UINT8:
        raise CodegenError(f"tpc_c: no rule for a {fn.return_dtype.c_name} result")
    ranged = {d for o in returned_outputs(ps) for d in _dtypes(output_term(o))} - {DType.UINT8}
    if bad := sorted(d.c_name for d in ranged if d.int_range is not None):
        raise CodegenError(f"tpc_c: no rule for conversions to {', '.join(bad)}")
    seen: set[str] = set()
    for o in returned_outputs(ps):
        if isinstance(o, ArrayOutput):
            p = params.get(o.array)
            if p is None or not isinstance(p.type, PointerType):
                raise CodegenError(f"output {show_output(o)}: {o.array!r} is not a pointer parameter of {fn.name}")
            if o.array in seen:
                raise CodegenError(f"two outputs for array {o.array!r} in {ps.function}")
            seen.add(o.array)
        elif fn.return_dtype is None:
            raise CodegenError(f"output {show_output(o)}: {fn.name} returns void")
        for name in sorted(free_vars(output_term(o))):
            if name not in params:
                raise CodegenError(f"output {show_output(o)}: {name!r} is not a parameter of {fn.name}")


def _dtypes(t: Term) -> set[DType]:
    """The dtypes of ``t``'s nodes."""
    out = {t.dtype} if hasattr(t, "dtype") else set()
    for c in children(t):
        out |= _dtypes(c)
    return out


def _function_for(term: Term) -> Function:
    """A C signature whose parameters are the free variables of ``term`` (arrays for tensor
    variables), plus an output array ``__out`` (for :meth:`TpcCBackend.supports`)."""
    found: dict[str, Param] = {}

    def walk(t: Term) -> None:
        if isinstance(t, TensorVar):
            found.setdefault(t.name, Param(t.name, PointerType(t.dtype)))
        elif isinstance(t, ScalarVar):
            found.setdefault(t.name, Param(t.name, ScalarType(t.dtype)))
        for c in children(t):
            walk(c)

    walk(term)
    found.setdefault("__out", Param("__out", PointerType(term.dtype)))
    return Function("term", tuple(found.values()), term.dtype, (), ())


TPC_C = TpcCBackend()
register_backend(TPC_C)
