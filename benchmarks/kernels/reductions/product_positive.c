// product of the positive elements (a guarded running product)
float product_positive(int n, const float *a) {
  float p = 1.0f;
  for (int i = 0; i < n; i++)
    if (a[i] > 0.0f)
      p *= a[i];
  return p;
}
