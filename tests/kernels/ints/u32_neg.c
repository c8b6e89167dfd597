// unary minus of an unsigned int: 2^32 - x modulo 2^32.
// expect: verified "uint32"
void u32_neg(unsigned int *a, unsigned int *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = -a[i];
}
