/* Glue code for the TPC kernels of `normal_blend_8` (tenspiler), for the Habana custom-kernel
 * library (tpc_lib_api). For each kernel of normal_blend_8.tpc.c: GetKernelName (the name the
 * graph compiler looks up) and GetGcDefinitions, which
 *   I   checks the number and element types of the tensors (1-D views of one length that
 *       the host part, normal_blend_8_host.py, sets up),
 *   II  sets the index space: rank 1, ceil(length / B) elements, B = k<Kernel>Block
 *       (64: one 64-lane vector; 256 for a kernel with an 8-bit tensor: one vector of bytes),
 *   III sets the access pattern: element i of dim 0 touches tensor elements [B i, B i + B - 1],
 *   IV  copies the scalar parameters (the kernel's `main` scalars, in order),
 *   V   loads the kernel binary.
 *
 * NOT compiled here: it needs the Habana SDK headers and the kernel ELFs (build kernel i with
 * `tpc-clang -march=gaudi2 -c normal_blend_8.tpc.c -DTENSPILER_KERNEL=i`, link the object in as
 * _binary___<kernel name>_o_start/_end). tenspiler checks the kernels themselves with
 * tpc_emulation.h instead. */
#include <cstring>

#include "gc_interface.h"
#include "tpc_kernel_lib_interface.h"

namespace tenspiler_normal_blend_8 {

// ---- k0: tenspiler_normal_blend_8_k0 (map) computes cast(tensor_scalar(tensor_tensor(scalar_tensor(opacity, take(active, n), *), scalar_tensor((255 - opacity), take(base, n), *), +), 255, /), uint8)
// tensors (main order):
//   input   active (uint8): take(active, n)
//   input   base (uint8): take(base, n)
//   output  out_out (uint8): out[0:n] = cast(tensor_scalar(tensor_tensor(scalar_tensor(opacity, take(active, n), *), scalar_tensor((255 - opacity), take(base, n), *), +), 255, /), uint8)
// length: the output range's length
static const unsigned kK0Block = 256;  // tensor elements per index-space element
extern unsigned char _binary___tenspiler_normal_blend_8_k0_o_start;
extern unsigned char _binary___tenspiler_normal_blend_8_k0_o_end;

struct K0Params {  // the scalar parameters of main, in order (4 bytes each)
    int opacity;  // the parameter opacity
};

tpc_lib_api::GlueCodeReturn K0GetKernelName(char kernelName[tpc_lib_api::MAX_NODE_NAME])
{
    strcpy(kernelName, "tenspiler_normal_blend_8_k0");
    return tpc_lib_api::GLUE_SUCCESS;
}

tpc_lib_api::GlueCodeReturn K0GetGcDefinitions(tpc_lib_api::HabanaKernelParams* params,
                                              tpc_lib_api::HabanaKernelInstantiation* kernel)
{
    // I: tensors
    if (params->inputTensorNr != 2) {
        params->inputTensorNr = 2;
        return tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_COUNT;
    }
    if (params->outputTensorNr != 1) {
        params->outputTensorNr = 1;
        return tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_COUNT;
    }
    static const tpc_lib_api::TensorDataType inTypes[] = {tpc_lib_api::DATA_U8, tpc_lib_api::DATA_U8};
    static const tpc_lib_api::TensorDataType outTypes[] = {tpc_lib_api::DATA_U8};
    for (unsigned t = 0; t < params->inputTensorNr; t++)
        if (params->inputTensors[t].geometry.dataType != inTypes[t]) {
            params->inputTensors[t].geometry.dataType = inTypes[t];
            return tpc_lib_api::GLUE_INCOMPATIBLE_DATA_TYPE;
        }
    for (unsigned t = 0; t < params->outputTensorNr; t++)
        if (params->outputTensors[t].geometry.dataType != outTypes[t]) {
            params->outputTensors[t].geometry.dataType = outTypes[t];
            return tpc_lib_api::GLUE_INCOMPATIBLE_DATA_TYPE;
        }
    const unsigned length = params->outputTensors[0].geometry.maxSizes[0];
    for (unsigned t = 0; t < params->inputTensorNr; t++)
        if (params->inputTensors[t].geometry.maxSizes[0] != length)
            return tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE;

    // II: index space, one element per block of kK0Block tensor elements
    kernel->indexSpaceRank = 1;
    kernel->indexSpaceGeometry[0] = (length + kK0Block - 1) / kK0Block;

    // III: element i of dim 0 touches [kK0Block i, kK0Block i + kK0Block - 1] of every tensor
    for (unsigned t = 0; t < params->inputTensorNr; t++) {
        kernel->inputTensorAccessPattern[t].mapping[0].indexSpaceDim = 0;
        kernel->inputTensorAccessPattern[t].mapping[0].a = kK0Block;
        kernel->inputTensorAccessPattern[t].mapping[0].start_b = 0;
        kernel->inputTensorAccessPattern[t].mapping[0].end_b = kK0Block - 1;
    }
    for (unsigned t = 0; t < params->outputTensorNr; t++) {
        kernel->outputTensorAccessPattern[t].mapping[0].indexSpaceDim = 0;
        kernel->outputTensorAccessPattern[t].mapping[0].a = kK0Block;
        kernel->outputTensorAccessPattern[t].mapping[0].start_b = 0;
        kernel->outputTensorAccessPattern[t].mapping[0].end_b = kK0Block - 1;
    }

    // IV: scalar parameters (from the node's parameter struct)
    K0Params scalars;
    memcpy(&scalars, params->nodeParams.nodeParams, sizeof(scalars));
    kernel->kernel.paramsNr = sizeof(scalars) / sizeof(int);
    memcpy(&(kernel->kernel.scalarParams[0]), &scalars, sizeof(scalars));

    // V: the kernel binary
    const unsigned isaSize = (unsigned)(&_binary___tenspiler_normal_blend_8_k0_o_end - &_binary___tenspiler_normal_blend_8_k0_o_start);
    const unsigned given = kernel->kernel.elfSize;
    kernel->kernel.elfSize = isaSize;
    if (given < isaSize) return tpc_lib_api::GLUE_INSUFFICIENT_ELF_BUFFER;
    memcpy(kernel->kernel.kernelElf, &_binary___tenspiler_normal_blend_8_k0_o_start, isaSize);
    return tpc_lib_api::GLUE_SUCCESS;
}

/* The kernels of normal_blend_8.tpc.c, for the library's GetKernelGuids / InstantiateTpcKernel
 * dispatch (entry_points.cpp in the custom-kernel library). */
struct KernelEntry {
    const char* name;
    tpc_lib_api::GlueCodeReturn (*getKernelName)(char[tpc_lib_api::MAX_NODE_NAME]);
    tpc_lib_api::GlueCodeReturn (*getGcDefinitions)(tpc_lib_api::HabanaKernelParams*,
                                                   tpc_lib_api::HabanaKernelInstantiation*);
};

static const KernelEntry kKernels[] = {
    {"tenspiler_normal_blend_8_k0", K0GetKernelName, K0GetGcDefinitions}
};
static const unsigned kKernelCount = 1;

}  // namespace tenspiler_normal_blend_8
