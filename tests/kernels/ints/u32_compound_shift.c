// compound shift and mask assignments on unsigned int: x = (x << 3) & 0xFFFF.
// expect: verified "uint32"
void u32_compound_shift(unsigned int *a, unsigned int *out, int n) {
    for (int i = 0; i < n; i++) {
        unsigned int x = a[i];
        x <<= 3;
        x &= 0xFFFFu;
        out[i] = x;
    }
}
