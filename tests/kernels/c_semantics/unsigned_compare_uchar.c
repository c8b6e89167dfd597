// class 1 variant: an unsigned char operand is never negative, so a[i] < 10u is exact.
// expect: verified
#include <stdint.h>
int f(uint8_t *a, int n) { int c = 0; for (int i = 0; i < n; i++) if (a[i] < 10u) c++; return c; }
