/* switch on an unsigned char element: promoted to int; a label no unsigned char equals. */
void switch_narrow(const unsigned char *c, int *out, int n)
{
    for (int i = 0; i < n; ++i) {
        int v = 0;
        switch (c[i]) {
            case 97:
                v = 1;
                break;
            case 200:
                v = 2;
                break;
            case 300:
                v = 3;
                break;
            case -1:
                v = 4;
                break;
        }
        out[i] = v;
    }
}
