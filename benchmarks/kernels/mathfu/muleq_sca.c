/* mathfu muleq_sca: a *= b for a scalar b over n entries. */
void muleq_sca(int *a, int b, int n)
{
    int k;
    for (k = 0; k < n; k++)
        a[k] *= b;
}
