/* Contiguous output from a run-time strided input, a stride computed before the loop and
   a read one element past the strided position. */
void gather_scale(int n, const double *x, int inc, double alpha, double *out)
{
    int step = 2 * inc;
    for (int i = 1; i < n; i++)
        out[i] = alpha * x[i * step + 1] - x[step * i];
}
