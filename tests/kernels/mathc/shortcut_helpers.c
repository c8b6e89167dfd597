typedef struct layer {
  int outputs;
  float *output;
} layer;
void copy_cpu(int N, float *X, int INCX, float *Y, int INCY) {
  int i;
  for (i = 0; i < N; ++i) Y[i * INCY] = X[i * INCX];
}
void axpy_cpu(int N, float ALPHA, float *X, int INCX, float *Y, int INCY) {
  int i;
  for (i = 0; i < N; ++i) Y[i * INCY] += ALPHA * X[i * INCX];
}
void shortcut_helpers(const layer *l, float *add, float *delta) {
  copy_cpu(l->outputs, add, 1, l->output, 1);
  axpy_cpu(l->outputs, 0.5f, delta, 1, l->output, 1);
}
