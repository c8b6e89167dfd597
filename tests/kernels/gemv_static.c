/* y = A x for a fixed 48 x 64 int matrix: every size static, so `lift --to gemmini` runs the
 * verified schedule search for the product. */
void gemv_static(int *A, int *x, int *y)
{
    for (int r = 0; r < 48; r++) {
        int dotp = 0;
        for (int c = 0; c < 64; c++)
            dotp += A[r * 64 + c] * x[c];
        y[r] = dotp;
    }
}
