/* dsp vcopy: copy the n entries of a into b. */
void vcopy(int *a, int *b, int n)
{
    int k;
    for (k = 0; k < n; k++) {
        int v = a[k];
        b[k] = v;
    }
}
