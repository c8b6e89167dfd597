/* mathfu matmul_sca: matB = matA * val for row-major m x n int matrices. */
void matmul_sca(int *matA, int *matB, int val, int m, int n)
{
    for (int r = 0; r < m; r++) {
        for (int c = 0; c < n; c++) {
            int at = r * n + c;
            matB[at] = val * matA[at];
        }
    }
}
