/* dsp vadd: c = a + b element-wise over n entries. */
void vadd(int *a, int *b, int *c, int n)
{
    for (int k = 0; k < n; k++)
        c[k] = a[k] + b[k];
}
