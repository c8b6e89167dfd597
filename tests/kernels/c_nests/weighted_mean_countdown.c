/* A weighted mean of vectors written as shipped DSP code writes it: unsigned count-down
   while loops, the inner counter reset in every outer iteration, pointer bumps, and the
   sum of the weights accumulated in the same outer loop as the weighted sum. */
#include <stdint.h>
void wmean(const float *in, const float *w, float *out, uint32_t nv, uint32_t dim)
{
    const float *pi = in, *pw = w;
    float *po;
    uint32_t cv = nv, cs;
    float acc = 0.0f, wt;
    cs = dim; po = out;
    while (cs > 0) { *po = 0.0f; po++; cs--; }
    while (cv > 0) {
        po = out;
        wt = *pw++;
        acc += wt;
        cs = dim;
        while (cs > 0) { *po = *po + *pi++ * wt; po++; cs--; }
        cv--;
    }
    cs = dim; po = out;
    while (cs > 0) { *po = *po / acc; po++; cs--; }
}
