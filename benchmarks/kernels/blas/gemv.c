/* blas gemv: y = A x for a row-major M x N int matrix A (y[r] = sum_c A[r*N + c] * x[c]). */
void gemv(int M, int N, int *A, int *x, int *y)
{
    int r, c;
    for (r = 0; r < M; r++) {
        int dotp = 0;
        for (c = 0; c < N; c++)
            dotp += A[r * N + c] * x[c];
        y[r] = dotp;
    }
}
