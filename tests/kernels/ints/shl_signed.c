// left shift of a signed int: x * 2^k; a negative x or an overflow is undefined behaviour (UBSan drops such inputs).
// expect: verified "*"
void shl_signed(int *a, int *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] << 2;
}
