/* A file of a project, lifted as it is: `lift src/dsp.c --function dsp_gain_clip -I include`.
   Nothing outside the lifted function blocks it: a FILE * global, a function that prints,
   a constructor. */
#include "dsp.h"
#include <math.h>

FILE *dsp_log;

__attribute__((constructor)) static void dsp_setup(void) { dsp_log = stderr; }

void dsp_dump(const dsp_buffer *b) {
  for (int i = 0; i < b->length; i++) fprintf(dsp_log, "%g\n", b->data[i]);
}

void dsp_gain_clip(const sample_t *restrict src, sample_t *restrict dst, sample_t gain, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    dst[i] = dsp_clip(DSP_GAIN(src[i], gain), 1.0f);
  }
}
