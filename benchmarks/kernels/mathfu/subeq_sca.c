/* mathfu subeq_sca: a -= b for a scalar b over n entries. */
void subeq_sca(int *a, int b, int n)
{
    for (int k = 0; k < n; k++) {
        a[k] = a[k] - b;
    }
}
