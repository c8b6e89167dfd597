// short + short stored into short: GCC reduces modulo 2^16 (C11 6.3.1.3p3).
// expect: verified "int16"
void i16_add_wrap(short *a, short *b, short *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] + b[i];
}
