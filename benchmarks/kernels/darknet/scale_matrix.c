/* darknet scale_matrix: multiply every element of a rows x cols struct matrix by scale, in place. */
typedef struct matrix {
    int rows, cols;
    int **vals;
} matrix;

void scale_matrix(matrix m, int scale)
{
    int r, c;
    for (r = 0; r < m.rows; r++) {
        for (c = 0; c < m.cols; c++)
            m.vals[r][c] *= scale;
    }
}
