/* A void helper whose early return guards an accumulate into its array parameter (the
   caller's output, passed at an offset). */
static void add_positive(float *acc, int k, float val)
{
    if (val <= 0) return;
    acc[k] += val;
}

void helper_add_guard(const float *col, float *acc, int n)
{
    for (int i = 0; i < n; ++i) {
        double val = col[i];
        add_positive(acc + 1, i, val);
    }
}
