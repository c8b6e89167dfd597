/* mathfu diveq_sca: a /= b for a scalar b (C integer division, truncating) over n entries. */
void diveq_sca(int *a, int b, int n)
{
    for (int k = 0; k <= n - 1; k++) {
        a[k] /= b;
    }
}
