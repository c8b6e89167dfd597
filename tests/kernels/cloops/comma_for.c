/* Comma operators in a for loop's clauses: two counters initialised and stepped together,
   and several variables declared by the clause (issue 34). */
float comma_for(const float *x, const float *y, float *out, int n) {
    int i, k, c;
    float s;
    for (i = 0, k = 0, s = 0.0f; i < n; i++, k += 1)
        s += x[i] * y[k];
    for (int j = 0, t = 3; j < n; ++j, t++)
        out[j] = x[j] * 2.0f;
    for (i = 0, c = 0; i < n; i++)
        c += x[i] > 0.0f;
    return s + (float)c;
}
