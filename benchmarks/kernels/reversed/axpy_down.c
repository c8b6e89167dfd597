/* BLAS axpy, iterating from the end (y = alpha * x + y). */
void axpy_down(float *x, float *y, float alpha, int n) {
  for (int i = n - 1; i >= 0; --i) y[i] = alpha * x[i] + y[i];
}
