void avg3(float *in, float *out, int n) { for (int i = 1; i < n - 1; i++) out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f; }
