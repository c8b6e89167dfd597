/* Clip into [lo, hi]; no samples stores a status and returns 0. */
int clip_guard(const int *x, int *y, int n, int lo, int hi, int *status)
{
    if (n <= 0) {
        *status = -1;
        return 0;
    }
    for (int i = 0; i < n; i++)
        y[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
    *status = 0;
    return n;
}
