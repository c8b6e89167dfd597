/* keep the elements at or after position k, zero the others (the counter in a comparison) */
void window_mask(float *out, float *in, int k, int n) {
    for (int i = 0; i < n; i++)
        out[i] = i >= k ? in[i] : 0.0f;
}
