#include <stddef.h>
/* darknet / BLAS style argument checks */
void guard_null(int N, float ALPHA, float *X, float *Y)
{
    if (X == NULL || Y == NULL || N <= 0) return;
    int i;
    for (i = 0; i < N; ++i) Y[i] += ALPHA * X[i];
}
