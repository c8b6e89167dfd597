// class 4 variant: conditionals take the compiler's branch (GCC defines __GNUC__).
// expect: verified "5"
#ifdef __GNUC__
#define K 5
#else
#define K 7
#endif
#if K > 6
#error wrong branch
#endif
#define SCALED(x) ((x) * K)
void f(int *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = SCALED(a[i]); }
