/* mathfu subeq: a -= b element-wise over n entries. */
void subeq(int *a, int *b, int n)
{
    for (int k = 0; k <= n - 1; k++)
        a[k] -= b[k];
}
