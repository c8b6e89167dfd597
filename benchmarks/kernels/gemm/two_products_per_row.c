// two matrix products per row, the second reading the first's row: D = A*W + A*B
void two_products_per_row(int M, int N, int K, int *A, int *B, int *W, int *C, int *D) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++) {
      int s = 0;
      for (int k = 0; k < K; k++)
        s += A[i * K + k] * B[k * N + j];
      C[i * N + j] = s;
    }
    for (int j = 0; j < N; j++) {
      int t = 0;
      for (int k = 0; k < K; k++)
        t += A[i * K + k] * W[k * N + j];
      D[i * N + j] = t + C[i * N + j];
    }
  }
}
