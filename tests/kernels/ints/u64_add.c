// unsigned long arithmetic wraps modulo 2^64, beyond the int64 generated code computes in: refused.
// expect: refused "unsigned arithmetic '+' in 'unsigned long'"
void u64_add(unsigned long *a, unsigned long *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] + 1;
}
