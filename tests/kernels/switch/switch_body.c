/* A switch in the loop body itself: a fall-through into the next case, a default. */
void switch_body(int *y, const int *x, int n, int mode)
{
    for (int i = 0; i < n; ++i) {
        int r = x[i];
        switch (mode) {
            case 0:
                r = 2 * x[i];
                break;
            case 1:
                r = 3 * r;
                /* falls through */
            case 2:
                r = r + 1;
                break;
            default:
                r = -r;
        }
        y[i] = r;
    }
}
