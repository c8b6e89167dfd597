/* A value helper reading two arrays (one through a pointer into it), with a bounds guard,
   summed. */
static int at_or_zero(const int *a, const int *w, int len, int k)
{
    if (k < 0 || k >= len) return 0;
    return a[k] * w[k];
}

int helper_clip_sum(const int *a, const int *w, int n, int m)
{
    int s = 0;
    for (int i = 0; i < n; ++i) {
        s += at_or_zero(a, w + 2, m, i);
    }
    return s;
}
