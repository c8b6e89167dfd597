/* The mean computed by a helper that writes it through a pointer to a local. */
static void mean_of(const float *x, int n, float *m)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += x[i];
    *m = s / (float) n;
}

void center(const float *x, float *y, int n)
{
    float mu;
    mean_of(x, n, &mu);
    for (int i = 0; i < n; i++)
        y[i] = x[i] - mu;
}
