void gemv_acc(int M, int N, int *A, int *x, int *y) {
  for (int i = 0; i < M; i++) { y[i] = 0; for (int j = 0; j < N; j++) y[i] += A[i * N + j] * x[j]; }
}
