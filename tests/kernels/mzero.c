/* a fill of a flattened rows x n matrix (a loop nest) */
void mzero(float *m, int rows, int n) {
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < n; j++)
            m[i * n + j] = 0.0f;
}
