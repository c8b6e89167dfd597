// x ^ y: not modelled yet, refused by name.
// expect: refused "bitwise operator '^'"
void xor2(int *x, int *y, int *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = x[i] ^ y[i];
}
