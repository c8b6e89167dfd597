void downsample2(float *a, float *out, int n) {
  int j = 0;
  for (int i = 0; i < n; i += 2) { out[j] = (a[i] + a[i + 1]) * 0.5f; j++; }
}
