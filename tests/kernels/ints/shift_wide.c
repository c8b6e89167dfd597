// a shift count >= the width of the promoted type is undefined behaviour (C11 6.5.7p3): refused.
// expect: refused "shift count 32 outside [0, 32)"
void shift_wide(unsigned int *a, unsigned int *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] >> 32;
}
