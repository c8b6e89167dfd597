/* utdsp fir_small: one output sample of an NTAPS-tap FIR filter, sum input[k] * coefficient[k]. */
int fir_small(int NTAPS, int *input, int *coefficient)
{
    int y = 0;
    int k;

    for (k = 0; k < NTAPS; k++)
        y += coefficient[k] * input[k];

    return y;
}
