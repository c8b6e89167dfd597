// a shift by a run-time count: 0 <= k < 32 (C11 6.5.7p3) is a stated precondition the
// generated code checks; the shift is the product by pow(2, k).
// expect: verified "pow(2, k)"
void shift_var(int *a, int *out, int k, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] << k;
}
