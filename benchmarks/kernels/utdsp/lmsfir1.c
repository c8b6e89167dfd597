/* utdsp lmsfir1: filtering step of an LMS adaptive FIR, sum input[k] * coefficient[k] (gain unused here). */
int lmsfir1(int NTAPS, int *input, int *coefficient, int gain)
{
    int y = 0;
    for (int k = 0; k < NTAPS; k++) {
        y = y + input[k] * coefficient[k];
    }
    return y;
}
