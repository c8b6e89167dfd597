int drain(int *a, int n, int acc)
{
    for (int i = 0; i < n; ++i)
        acc -= a[i] % 7;
    return 2 * acc + n;
}
