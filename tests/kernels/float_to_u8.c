// A float array converted to unsigned char, then widened: NumPy truncates it in int32 when the
// values allow (_float_to_uint8), in int64 otherwise; C leaves values outside (-1, 256)
// undefined (the check drops such inputs, UBSan float-cast-overflow).
void float_to_u8(float *a, unsigned char *out, int n) {
    for (int i = 0; i < n; i++) {
        unsigned char q = a[i];
        out[i] = q + 3;
    }
}
