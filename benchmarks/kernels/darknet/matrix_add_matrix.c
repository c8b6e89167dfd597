/* darknet matrix_add_matrix: to += from, element-wise, over a rows x cols struct matrix. */
typedef struct matrix {
    int rows, cols;
    int **vals;
} matrix;

void matrix_add_matrix(matrix from, matrix to)
{
    int r, c;
    for (r = 0; r < from.rows; r++) {
        for (c = 0; c < from.cols; c++) {
            to.vals[r][c] = to.vals[r][c] + from.vals[r][c];
        }
    }
}
