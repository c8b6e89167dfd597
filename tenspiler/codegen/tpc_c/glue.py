"""The ``<fn>_glue.cpp`` text: host glue for the Habana custom-kernel library, one
``GetKernelName`` / ``GetGcDefinitions`` pair per kernel (the entry points the graph compiler
calls, as in github.com/HabanaAI/Habana_Custom_Kernel ``src/``), plus a table of the kernels.

The glue validates the tensor counts and element types, sets the one-dimensional index-space
geometry (``ceil(length / B)`` blocks, ``B`` = 64 elements, or 256 for a kernel with an 8-bit
tensor: :attr:`~.kernel.KernelSignature.block`) and the access patterns (index-space element
``i`` touches elements ``B i … B i + B - 1`` of every tensor), copies the scalar parameters and
loads the kernel binary. It is plausible SDK code, documented, **not compiled here** (it needs the
SDK headers ``gc_interface.h`` / ``tpc_kernel_lib_interface.h`` and the kernel ELFs).
"""

from __future__ import annotations

from tenspiler.codegen.tpc_c.kernel import KernelSignature
from tenspiler.ir.printer import show
from tenspiler.loops.ir import DType, Function

_DATA_TYPE = {DType.FLOAT: "tpc_lib_api::DATA_F32", DType.INT: "tpc_lib_api::DATA_I32", DType.UINT8: "tpc_lib_api::DATA_U8"}
_C_TYPE = {DType.FLOAT: "float", DType.INT: "int32", DType.UINT8: "uint8"}


def glue_file(fn: Function, sigs: tuple[KernelSignature, ...]) -> str:
    """The glue for ``sigs`` (the kernels of ``<fn>.tpc.c``)."""
    ns = f"tenspiler_{fn.name}"
    head = f"""\
/* Glue code for the TPC kernels of `{fn.name}` (tenspiler), for the Habana custom-kernel
 * library (tpc_lib_api). For each kernel of {fn.name}.tpc.c: GetKernelName (the name the
 * graph compiler looks up) and GetGcDefinitions, which
 *   I   checks the number and element types of the tensors (1-D views of one length that
 *       the host part, {fn.name}_host.py, sets up),
 *   II  sets the index space: rank 1, ceil(length / B) elements, B = k<Kernel>Block
 *       (64: one 64-lane vector; 256 for a kernel with an 8-bit tensor: one vector of bytes),
 *   III sets the access pattern: element i of dim 0 touches tensor elements [B i, B i + B - 1],
 *   IV  copies the scalar parameters (the kernel's `main` scalars, in order),
 *   V   loads the kernel binary.
 *
 * NOT compiled here: it needs the Habana SDK headers and the kernel ELFs (build kernel i with
 * `tpc-clang -march=gaudi2 -c {fn.name}.tpc.c -DTENSPILER_KERNEL=i`, link the object in as
 * _binary___<kernel name>_o_start/_end). tenspiler checks the kernels themselves with
 * tpc_emulation.h instead. */
#include <cstring>

#include "gc_interface.h"
#include "tpc_kernel_lib_interface.h"

namespace {ns} {{
"""
    parts = [head]
    for s in sigs:
        parts.append(_kernel_glue(s))
    table = ",\n".join(f'    {{"{s.c_name}", {_cls(s)}GetKernelName, {_cls(s)}GetGcDefinitions}}' for s in sigs)
    parts.append(
        f"""\
/* The kernels of {fn.name}.tpc.c, for the library's GetKernelGuids / InstantiateTpcKernel
 * dispatch (entry_points.cpp in the custom-kernel library). */
struct KernelEntry {{
    const char* name;
    tpc_lib_api::GlueCodeReturn (*getKernelName)(char[tpc_lib_api::MAX_NODE_NAME]);
    tpc_lib_api::GlueCodeReturn (*getGcDefinitions)(tpc_lib_api::HabanaKernelParams*,
                                                   tpc_lib_api::HabanaKernelInstantiation*);
}};

static const KernelEntry kKernels[] = {{
{table or "    /* no device kernel: everything runs on the host */"}
}};
static const unsigned kKernelCount = {len(sigs)};

}}  // namespace {ns}
"""
    )
    return "\n".join(parts)


def _cls(s: KernelSignature) -> str:
    return "".join(w.capitalize() for w in s.kernel.name.split("_"))


def _kernel_glue(s: KernelSignature) -> str:
    k = s.kernel
    c = _cls(s)
    inputs = [t for t in s.tensors if t.role == "input"]
    outputs = [t for t in s.tensors if t.role != "input"]
    fields = "\n".join(f"    {p.c_type} {p.name};  // {_scalar_doc(p)}" for p in s.scalars) or "    // (none)"
    in_types = ", ".join(_DATA_TYPE[t.dtype] for t in inputs)
    out_types = ", ".join(_DATA_TYPE[t.dtype] for t in outputs)
    tensor_doc = "\n".join(
        f"//   {t.role:7} {t.name} ({_C_TYPE[t.dtype]}): {t.source or ('partial results: 64 at the start of each index-space element')}"
        for t in s.tensors
    )
    if k.kind == "map":
        length = "params->outputTensors[0].geometry.maxSizes[0]"
        length_doc = "the output range's length"
        out_check = """\
    for (unsigned t = 0; t < params->inputTensorNr; t++)
        if (params->inputTensors[t].geometry.maxSizes[0] != length)
            return tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE;"""
    else:
        length = "params->inputTensors[0].geometry.maxSizes[0]"
        length_doc = f"the reduced tensor's length; the partial tensor has {s.block} elements per index-space element"
        out_check = f"""\
    for (unsigned t = 0; t < params->inputTensorNr; t++)
        if (params->inputTensors[t].geometry.maxSizes[0] != length)
            return tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE;
    if (params->outputTensors[0].geometry.maxSizes[0] != (length + k{c}Block - 1) / k{c}Block * k{c}Block)
        return tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE;"""
    valid = next((p.name for p in s.scalars if p.kind == "length"), None)
    set_valid = f"\n    scalars.{valid} = (int)length;  // masks the lanes past the end" if valid else ""
    return f"""\
// ---- {k.name}: {s.c_name} ({k.kind}) computes {show(k.source)}
// tensors (main order):
{tensor_doc}
// length: {length_doc}
static const unsigned k{c}Block = {s.block};  // tensor elements per index-space element
extern unsigned char _binary___{s.c_name}_o_start;
extern unsigned char _binary___{s.c_name}_o_end;

struct {c}Params {{  // the scalar parameters of main, in order (4 bytes each)
{fields}
}};

tpc_lib_api::GlueCodeReturn {c}GetKernelName(char kernelName[tpc_lib_api::MAX_NODE_NAME])
{{
    strcpy(kernelName, "{s.c_name}");
    return tpc_lib_api::GLUE_SUCCESS;
}}

tpc_lib_api::GlueCodeReturn {c}GetGcDefinitions(tpc_lib_api::HabanaKernelParams* params,
                                              tpc_lib_api::HabanaKernelInstantiation* kernel)
{{
    // I: tensors
    if (params->inputTensorNr != {len(inputs)}) {{
        params->inputTensorNr = {len(inputs)};
        return tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_COUNT;
    }}
    if (params->outputTensorNr != {len(outputs)}) {{
        params->outputTensorNr = {len(outputs)};
        return tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_COUNT;
    }}
    static const tpc_lib_api::TensorDataType inTypes[] = {{{in_types or "tpc_lib_api::DATA_F32"}}};
    static const tpc_lib_api::TensorDataType outTypes[] = {{{out_types}}};
    for (unsigned t = 0; t < params->inputTensorNr; t++)
        if (params->inputTensors[t].geometry.dataType != inTypes[t]) {{
            params->inputTensors[t].geometry.dataType = inTypes[t];
            return tpc_lib_api::GLUE_INCOMPATIBLE_DATA_TYPE;
        }}
    for (unsigned t = 0; t < params->outputTensorNr; t++)
        if (params->outputTensors[t].geometry.dataType != outTypes[t]) {{
            params->outputTensors[t].geometry.dataType = outTypes[t];
            return tpc_lib_api::GLUE_INCOMPATIBLE_DATA_TYPE;
        }}
    const unsigned length = {length};
{out_check}

    // II: index space, one element per block of k{c}Block tensor elements
    kernel->indexSpaceRank = 1;
    kernel->indexSpaceGeometry[0] = (length + k{c}Block - 1) / k{c}Block;

    // III: element i of dim 0 touches [k{c}Block i, k{c}Block i + k{c}Block - 1] of every tensor
    for (unsigned t = 0; t < params->inputTensorNr; t++) {{
        kernel->inputTensorAccessPattern[t].mapping[0].indexSpaceDim = 0;
        kernel->inputTensorAccessPattern[t].mapping[0].a = k{c}Block;
        kernel->inputTensorAccessPattern[t].mapping[0].start_b = 0;
        kernel->inputTensorAccessPattern[t].mapping[0].end_b = k{c}Block - 1;
    }}
    for (unsigned t = 0; t < params->outputTensorNr; t++) {{
        kernel->outputTensorAccessPattern[t].mapping[0].indexSpaceDim = 0;
        kernel->outputTensorAccessPattern[t].mapping[0].a = k{c}Block;
        kernel->outputTensorAccessPattern[t].mapping[0].start_b = 0;
        kernel->outputTensorAccessPattern[t].mapping[0].end_b = k{c}Block - 1;
    }}

    // IV: scalar parameters (from the node's parameter struct)
    {c}Params scalars;
    memcpy(&scalars, params->nodeParams.nodeParams, sizeof(scalars));{set_valid}
    kernel->kernel.paramsNr = sizeof(scalars) / sizeof(int);
    memcpy(&(kernel->kernel.scalarParams[0]), &scalars, sizeof(scalars));

    // V: the kernel binary
    const unsigned isaSize = (unsigned)(&_binary___{s.c_name}_o_end - &_binary___{s.c_name}_o_start);
    const unsigned given = kernel->kernel.elfSize;
    kernel->kernel.elfSize = isaSize;
    if (given < isaSize) return tpc_lib_api::GLUE_INSUFFICIENT_ELF_BUFFER;
    memcpy(kernel->kernel.kernelElf, &_binary___{s.c_name}_o_start, isaSize);
    return tpc_lib_api::GLUE_SUCCESS;
}}
"""


def _scalar_doc(p: object) -> str:
    kind = getattr(p, "kind", "")
    source = getattr(p, "source", "")
    if kind == "param":
        return f"the parameter {source}"
    if kind == "host":
        return f"host value {source} (see the host part)"
    return "number of valid elements"
