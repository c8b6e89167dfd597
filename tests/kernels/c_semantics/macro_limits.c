// class 4 variant: INT_MAX comes from <limits.h> as the compiler sees it.
// expect: verified "2147483647"
#include <limits.h>
void f(int *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = a[i] == INT_MAX ? 0 : a[i]; }
