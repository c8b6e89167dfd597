/* forward difference: reads a[i + 1] */
void diff_next(int *a, int *d, int n)
{
    for (int i = 0; i < n - 1; i++)
        d[i] = a[i + 1] - a[i];
}
