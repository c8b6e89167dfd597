// an unsigned int value above INT_MAX stored into an int narrows (GCC: modulo 2^32): refused.
// expect: refused "conversion from 'unsigned int' to 'int'"
void u32_to_int(unsigned int *a, int *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] * 3u;
}
