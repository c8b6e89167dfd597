/* Column sums of a row-major m x n matrix: the inner loop walks down a column. */
void col_sums(float *A, int m, int n, float *out)
{
    for (int j = 0; j < n; j++) {
        float s = 0.0f;
        for (int i = 0; i < m; i++)
            s += A[i * n + j];
        out[j] = s;
    }
}
