void idx_postinc(const int *a, int *out, int n)
{
    int i = 0;
    while (i < n) {
        out[i] = a[i++] + 1;
    }
}
