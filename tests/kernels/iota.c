/* the loop counter used as a value */
void iota(int *a, int n) {
    for (int i = 0; i < n; i++)
        a[i] = i;
}
