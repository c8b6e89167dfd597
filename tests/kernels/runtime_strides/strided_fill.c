/* Every inc-th element set to v (a strided fill). */
void strided_fill(int n, double v, double *x, int inc)
{
    int i;
    for (i = 0; i < n; i++) x[i * inc] = v;
}
