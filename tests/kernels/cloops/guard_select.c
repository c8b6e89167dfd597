int guard_select(const int *x, int n)
{
    if (n < 0) return -1;
    int s = 0;
    for (int i = 0; i < n; i++) s += x[i];
    return s;
}
