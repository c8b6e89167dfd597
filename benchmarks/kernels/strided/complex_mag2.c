void complex_mag2(float *z, float *mag2, int n) {
  for (int i = 0; i < n; i++) mag2[i] = z[2*i] * z[2*i] + z[2*i+1] * z[2*i+1];
}
