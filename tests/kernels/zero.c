/* a fill with a literal */
void zero(float *a, int n) {
    for (int i = 0; i < n; i++)
        a[i] = 0.0f;
}
