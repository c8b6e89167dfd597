float guard_ret(const float *x, int n)
{
    if (n <= 0) return 0.0f;
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += x[i];
    return s;
}
