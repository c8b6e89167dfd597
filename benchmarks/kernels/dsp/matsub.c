/* dsp matsub: matA -= matB for two row-major m x n int matrices. */
void matsub(int *matA, int *matB, int m, int n)
{
    for (int r = 0; r < m; r++) {
        for (int c = 0; c < n; c++)
            matA[r * n + c] -= matB[r * n + c];
    }
}
