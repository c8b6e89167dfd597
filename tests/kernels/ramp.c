/* an input plus a multiple of the loop counter */
void ramp(int *a, int *b, int n) {
    for (int i = 0; i < n; i++)
        a[i] = b[i] + 2 * i;
}
