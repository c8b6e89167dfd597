/* mathfu diveq: a /= b element-wise (C integer division, truncating) over n entries. */
void diveq(int *a, int *b, int n)
{
    for (int k = 0; k < n; k++)
        a[k] = a[k] / b[k];
}
