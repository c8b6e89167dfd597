/* blas dot: inner product sum_k a[k] * b[k] of two int vectors of length n. */
int dot(int *a, int *b, int n)
{
    int acc = 0;
    int k;
    for (k = 0; k < n; k++)
        acc += a[k] * b[k];
    return acc;
}
