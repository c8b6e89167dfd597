/* y += a*x over two vectors at run-time strides (BLAS-style incx / incy). */
void saxpy(int n, float a, const float *x, int incx, float *y, int incy)
{
    for (int i = 0; i < n; ++i) y[i * incy] += a * x[i * incx];
}
