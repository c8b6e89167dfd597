/* add a position-dependent bias: x[i] + i / 4 (integer division of the counter) */
void positional_bias(int *y, int *x, int n) {
    for (int i = 0; i < n; i++)
        y[i] = x[i] + i / 4;
}
