// unsigned int addition wraps modulo 2^32.
// expect: verified "uint32"
void u32_add(unsigned int *a, unsigned int *b, unsigned int *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] + b[i];
}
