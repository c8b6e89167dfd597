static int square(int v) { return v * v; }

void add_square(int *a, int *out, int n)
{
    for (int i = 0; i < n; i += 1) {
        out[i] = square(a[i]) + 1;
    }
}
