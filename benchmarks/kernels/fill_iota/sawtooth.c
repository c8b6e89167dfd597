/* a byte ramp that wraps: out[i] = i mod 256 as unsigned char */
void sawtooth(unsigned char *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = (unsigned char)i;
}
