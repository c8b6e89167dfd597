/* an optional input array, tested for NULL inside the loop (darknet style) */
void opt_blend(const float *w, const float *a, const float *b, float *out, int n)
{
    for (int i = 0; i < n; ++i)
        out[i] = w[i] * a[i] + (1 - w[i]) * (b ? b[i] : 0);
}
