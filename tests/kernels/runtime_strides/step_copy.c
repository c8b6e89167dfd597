/* Every step-th element from index 1, scaled into a contiguous output. */
void step_copy(const double *x, int hi, int step, double c, double *out)
{
    int k = 0;
    for (int j = 1; j < hi; j += step)
        out[k++] = c * x[j];
}
