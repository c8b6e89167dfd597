/* dsp w_vec: weighted vector sum c = m * a + b over n entries. */
void wvec(int *a, int *b, int m, int *c, int n)
{
    for (int k = 0; k < n; k++)
        c[k] = a[k] * m + b[k];
}
