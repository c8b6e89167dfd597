/* dsp vsub: c = a - b element-wise over n entries. */
void vsub(int *a, int *b, int *c, int n)
{
    for (int k = 0; k < n; k++) {
        int diff = a[k] - b[k];
        c[k] = diff;
    }
}
