/* delta[i] *= g(x[i], k): a switch with a default returning, on an int selector. */
static float g(float x, int k)
{
    switch (k) {
        case 1:
            return (x > 0);
        case 2:
            return (x > 0) ? 1 : .01;
        case 3:
            if (x > 0 && x < 1) return 1;
            return .001;
        default:
            return 1;
    }
}

void switch_grad(const float *x, const int n, const int k, float *delta)
{
    for (int i = 0; i < n; ++i) {
        delta[i] *= g(x[i], k);
    }
}
