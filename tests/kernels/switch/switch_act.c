/* An activation chosen by an enum-typed parameter: a helper whose switch returns one
   per-case helper's value, and 0 after the switch for any other value. */
#include <math.h>

typedef enum { IDENT, RECT, LEAK, SIGM, CLIP, BAND } MODE;

static inline float rect_f(float x) { return x * (x > 0); }
static inline float leak_f(float x) { return (x > 0) ? x : .1 * x; }
static inline float sigm_f(float x) { return 1. / (1. + exp(-x)); }
static inline float clip_f(float x)
{
    if (x < -1) return -1;
    if (x > 1) return 1;
    return x;
}
static inline float band_f(float x)
{
    if (x < -4) return .01 * (x + 4);
    if (x > 4) return .01 * (x - 4) + 1;
    return .125 * x + .5;
}

float pick(float x, MODE m)
{
    switch (m) {
        case IDENT:
            return x;
        case RECT:
            return rect_f(x);
        case LEAK:
            return leak_f(x);
        case SIGM:
            return sigm_f(x);
        case CLIP:
            return clip_f(x);
        case BAND:
            return band_f(x);
    }
    return 0;
}

void switch_act(float *x, const int n, const MODE m)
{
    int i;
    for (i = 0; i < n; ++i) {
        x[i] = pick(x[i], m);
    }
}
