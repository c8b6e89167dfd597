/* dsp matscal: scale a row-major m x n int matrix by val, in place. */
void matscal(int *mat, int val, int m, int n)
{
    for (int r = 0; r < m; r++)
        for (int c = 0; c < n; c++)
            mat[r * n + c] = mat[r * n + c] * val;
}
