/* dsp vmul: c = a * b element-wise over n entries. */
void vmul(int *a, int *b, int *c, int n)
{
    for (int k = 0; k <= n - 1; k++) {
        c[k] = a[k] * b[k];
    }
}
