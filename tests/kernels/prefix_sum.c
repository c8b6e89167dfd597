/* a scan: not expressible in TensIR, must not lift */
void prefix_sum(int *a, int *b, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++) {
        s += a[i];
        b[i] = s;
    }
}
