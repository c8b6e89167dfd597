double ddot(int n, double *x, double *y)
{
    double acc = 0.0;
    for (int i = 0; i < n; i++)
        acc += x[i] * y[i];
    return acc;
}
