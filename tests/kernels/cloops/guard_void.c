void guard_void(const float *x, float *y, float a, int n)
{
    if (n <= 0) return;
    for (int i = 0; i < n; i++) y[i] = a * x[i];
}
