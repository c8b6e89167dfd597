/* every element of a flattened rows x cols matrix set to bias + 1 (a fill in a loop nest) */
void mat_fill(int *m, int bias, int rows, int cols) {
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            m[r * cols + c] = bias + 1;
}
