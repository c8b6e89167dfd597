/* Example kernel shipped with tenspiler: single-precision a*x + y (BLAS saxpy).
   Lift it with:  lift examples/saxpy.c --to numpy --check  */
void saxpy(int n, float a, float *x, float *y)
{
    for (int i = 0; i < n; i++) {
        y[i] = a * x[i] + y[i];
    }
}
