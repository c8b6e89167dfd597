/* sum of the indices 1 .. n-1 weighted by 3 (the counter inside a reduction) */
int index_sum(int n) {
    int s = 0;
    for (int i = 1; i < n; i++)
        s += 3 * i;
    return s;
}
