// a mask that is not 2^k - 1 is not modelled: refused by name.
// expect: refused "operator '&' is supported only with a constant mask"
void mask_other(int *a, int *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] & 0xF0;
}
