/* sum of each row of a rows x cols matrix stored row-major */
void row_sums(int *m, int *out, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        int acc = 0;
        for (int c = 0; c < cols; c++)
            acc += m[r * cols + c];
        out[r] = acc;
    }
}
