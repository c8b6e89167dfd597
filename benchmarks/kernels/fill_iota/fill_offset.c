/* fill a shifted window: a[i + 2] for i in [1, n) with a constant */
void fill_offset(int *a, int n) {
    for (int i = 1; i < n; i++)
        a[i + 2] = -7;
}
