// x ^ y on int data: the loop IR's bitwise xor (two's complement, as GCC).
// expect: verified "^"
void xor2(int *x, int *y, int *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = x[i] ^ y[i];
}
