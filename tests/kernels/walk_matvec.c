/* matrix-vector product written with walking pointers, dspstone style */
void walk_matvec(int n, int *m, int *v, int *r)
{
    int *pm = m, *pr = r;
    for (int i = 0; i < n; i++) {
        int *pv = v;
        *pr = 0;
        for (int j = 0; j < n; j++)
            *pr += *pm++ * *pv++;
        pr++;
    }
}
