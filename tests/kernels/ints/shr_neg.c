// right shift of negative ints: GCC shifts arithmetically (implementation-defined, C11 6.5.7p5), i.e. floors.
// expect: verified "//"
void shr_neg(int *a, int *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] >> 3;
}
