/* A value helper taking an array: the element when the index is inside [0, len), else 0. */
static float get_pixel(const float *im, int len, int k, int pad)
{
    k -= pad;
    if (k < 0 || k >= len) return 0;
    return im[k];
}

void helper_pixel(const float *im, float *out, int n, int m)
{
    for (int i = 0; i < n; ++i) {
        out[i] = get_pixel(im, m, i, 0) * 2;
    }
}
