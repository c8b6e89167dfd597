/* dsp matadd: matA += matB for two row-major m x n int matrices. */
void matadd(int *matA, int *matB, int m, int n)
{
    for (int r = 0; r < m; r++) {
        for (int c = 0; c < n; c++) {
            int at = r * n + c;
            matA[at] = matA[at] + matB[at];
        }
    }
}
