// an unsigned char accumulator: s + a[i] is computed in int and stored back modulo 256 at
// every step, which is the whole sum reduced modulo 256 once.
// expect: verified "uint8"
unsigned char u8_sum_wrap(const unsigned char *a, int n) {
    unsigned char s = 7;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}
