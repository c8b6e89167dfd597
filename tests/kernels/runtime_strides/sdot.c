/* A dot product of two vectors read at run-time strides (BLAS-style incx / incy). */
float sdot(int n, float *x, int incx, float *y, int incy)
{
    int i;
    float acc = 0;
    for (i = 0; i < n; ++i) acc += x[i * incx] * y[i * incy];
    return acc;
}
