int sum_postinc(const int *a, int n)
{
    int i = 0, s = 0;
    while (i < n)
        s += a[i++];
    return s;
}
