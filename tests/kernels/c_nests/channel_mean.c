/* Per-channel mean of a batch of planes, accumulated in the output element itself (the
 * darknet idiom): out[c] = scale * sum over b, s of x[b][c][s]. */
void channel_mean(const float *x, int batch, int channels, int spatial, float scale, float *out)
{
    int b, c, s;
    for (c = 0; c < channels; ++c) {
        out[c] = 0;
        for (b = 0; b < batch; ++b) {
            for (s = 0; s < spatial; ++s) {
                int index = b * channels * spatial + c * spatial + s;
                out[c] += x[index];
            }
        }
        out[c] *= scale;
    }
}
