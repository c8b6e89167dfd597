/* issue 32, class 1: t[i] - t0 converts the long t0 to float once. */
void sub_long(int n, float *t, long t0, float *out) {
    for (int i = 0; i < n; i++)
        out[i] = t[i] - t0;
}
