int weighted_residual(int *x, int *y, int w, int n)
{
    int s = 0;
    for (int i = 0; i < n; ++i) {
        s += w * x[i] - y[i];
    }
    return s;
}
