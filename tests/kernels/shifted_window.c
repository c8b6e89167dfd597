void shifted_window(int *a, int *out, int n)
{
    for (int i = 2; i <= n; i++) {
        out[i] = a[i - 2] + a[i];
    }
}
