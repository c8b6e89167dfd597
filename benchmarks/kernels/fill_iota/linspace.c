/* n evenly spaced samples starting at lo (numpy.linspace without the endpoint) */
void linspace(double *out, double lo, double step, int n) {
    for (int i = 0; i < n; i++)
        out[i] = lo + step * i;
}
