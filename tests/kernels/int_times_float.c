void int_times_float(int *a, float *out, float s, int n) { for (int i = 0; i < n; ++i) out[i] = a[i] * s; }
