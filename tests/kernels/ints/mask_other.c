// a mask that is not 2^k - 1: the loop IR's bitwise '&' (two's complement, as GCC).
// expect: verified "&"
void mask_other(int *a, int *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] & 0xF0;
}
