/* Squares of a strided input, normalised by their sum, into a strided output: two loop
   phases, the second reading and rewriting what the first wrote at the same stride. */
void strided_normalize(const float *in, int n, int stride, float *out)
{
    float total = 0;
    for (int i = 0; i < n; i++) {
        float e = in[i * stride] * in[i * stride];
        total += e;
        out[i * stride] = e;
    }
    for (int i = 0; i < n; i++)
        out[i * stride] /= total;
}
