// overlay blend on int data: 2*b*a cannot overflow int in C (undefined behaviour), so the summary using it where the source does is emitted.
// expect: verified "select"
void overlay_int(int *base, int *active, int *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = base[i] < 128 ? 2 * base[i] * active[i] / 255
                               : 255 - 2 * (255 - base[i]) * (255 - active[i]) / 255;
}
