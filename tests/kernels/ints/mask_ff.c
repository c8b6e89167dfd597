// x & 0xFF on int data: the low 8 bits, also of negative values.
// expect: verified "mod"
void mask_ff(int *x, int *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = x[i] & 0xFF;
}
