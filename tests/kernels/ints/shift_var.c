// a shift by a run-time count may be >= the width (undefined behaviour, C11 6.5.7p3): refused.
// expect: refused "shift '<<' by a count that is not a constant"
void shift_var(int *a, int *out, int k, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] << k;
}
