void row_stride(const float *A, int lda, const float *x, float *y, int m, int n)
{
    const float *a_ptr = A;
    for (int i = 0; i < m; i++) {
        float s = 0.0f;
        for (int j = 0; j < n; j++) s += a_ptr[j] * x[j];
        y[i] = s;
        a_ptr += lda;
    }
}
