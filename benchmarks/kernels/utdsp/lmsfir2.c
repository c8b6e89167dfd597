/* utdsp lmsfir2: coefficient update of an LMS adaptive FIR, coefficient[k] += input[k] * error for k < NTAPS - 1. */
void lmsfir2(int NTAPS, int *input, int *output, int *expected,
             int *coefficient, int gain, int sum, int error)
{
    int last = NTAPS - 1;
    for (int k = 0; k < last; k++)
        coefficient[k] = coefficient[k] + error * input[k];
}
