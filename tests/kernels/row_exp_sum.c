#include <math.h>
void row_exp_sum(float *A, float *out, int m, int n) { for (int i = 0; i < m; i++) { float s = 0.0f; for (int j = 0; j < n; j++) s += expf(A[i*n+j]); out[i] = s; } }
