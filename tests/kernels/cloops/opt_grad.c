/* optional output arrays (darknet style) */
void opt_grad(const float *g, const float *s, float *da, float *db, int n)
{
    int i;
    for (i = 0; i < n; ++i) {
        if (da) da[i] += g[i] * s[i];
        if (db != 0) db[i] += g[i] * (1 - s[i]);
    }
}
