/* A small DSP library's header, written as real headers are: include guard, system headers,
   typedefs, an enum, a struct, function-like macros and GNU extensions. */
#ifndef DSP_H
#define DSP_H

#include <stdint.h>
#include <stdio.h>

typedef float sample_t;
typedef int32_t acc_t;
typedef enum { DSP_OK = 0, DSP_ERROR = -1 } dsp_status;
typedef struct { int length; sample_t *data; } dsp_buffer;

#define DSP_INLINE static __inline __attribute__((always_inline))
#define DSP_GAIN(x, g) ((x) * (g))

DSP_INLINE sample_t dsp_clip(sample_t v, sample_t hi) { return v > hi ? hi : v; }

#endif
