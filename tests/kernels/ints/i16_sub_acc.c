// a short accumulator decremented by products: (short)(s - a[i]*b[i]) at every step (GCC
// reduces modulo 2^16), the whole difference reduced once.
// expect: verified "int16"
short i16_sub_acc(const short *a, const short *b, int n) {
    short s = 0;
    for (int i = 0; i < n; i++)
        s -= a[i] * b[i];
    return s;
}
