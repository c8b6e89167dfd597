void gemv_bias(int M, int N, int *A, int *x, int *b, int *y)
{
    for (int i = 0; i < M; ++i) {
        int s = 0;
        for (int j = 0; j < N; ++j) {
            s += A[i * N + j] * (x[j] - 1);
        }
        y[i] = 2 * s + b[i];
    }
}
