// uint8 multiply blend (a*b)/255: the product is computed in int after promotion.
// expect: verified "uint8"
void u8_mul_blend(unsigned char *a, unsigned char *b, unsigned char *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = (a[i] * b[i]) / 255;
}
