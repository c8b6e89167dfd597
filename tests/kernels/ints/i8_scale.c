// signed char data scaled, stored back with wrapping.
// expect: verified "int8"
void i8_scale(signed char *a, signed char *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] * 3;
}
