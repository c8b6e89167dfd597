void while_up(const int *a, const int *b, int *c, int n)
{
    int i = 0;
    while (i < n) {
        c[i] = a[i] * b[i];
        i++;
    }
}
