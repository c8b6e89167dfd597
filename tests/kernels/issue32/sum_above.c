/* issue 32: a float sum compared with a threshold flips with the summation order; the
   assumptions say so (the output is an integer). */
int sum_above(int n, float *x, float t) {
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s > t;
}
