// The two branches of #ifdef __OPTIMIZE__ compute different things: the proof, --check
// (cc -O2) and the generated code must all read the -O2 branch (SCALE 3).
#ifdef __OPTIMIZE__
#define SCALE 3
#else
#define SCALE 5
#endif
#ifndef __NO_INLINE__
#define OFFSET 1
#else
#define OFFSET 100
#endif
void optimize_branch(int *a, int *out, int n) {
  for (int i = 0; i < n; i++) out[i] = a[i] * SCALE + OFFSET;
}
