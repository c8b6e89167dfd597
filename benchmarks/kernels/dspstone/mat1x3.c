/* dspstone mat1x3: y = h x for an N x N row-major matrix h, walking h, x and y with pointers. */
void mat1x3(int N, int *h, int *x, int *y)
{
    int *ph = h;
    int *px;
    int *py = y;
    int row, col;

    for (row = 0; row < N; ++row) {
        px = x;
        *py = 0;
        for (col = 0; col < N; ++col)
            *py = *py + (*ph++) * (*px++);
        py++;
    }
}
