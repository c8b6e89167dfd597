// plain char data: the target's signedness (x86-64: signed), promoted to int and stored back wrapping.
// expect: verified
void char_plain(char *a, char *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] + 100;
}
