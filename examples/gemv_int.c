/* y = A x for an M x N row-major matrix of (int8-range) integers: lift --to gemmini */
void gemv_int(int M, int N, const int *A, const int *x, int *y)
{
    for (int i = 0; i < M; i++) {
        int s = 0;
        for (int j = 0; j < N; j++)
            s += A[i * N + j] * x[j];
        y[i] = s;
    }
}
