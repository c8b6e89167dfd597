// float matrices, a double accumulator: each product is rounded to float, the sum is double
void sgemm_double_acc(int M, int N, int K, float *A, float *B, float *C) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++) {
      double acc = 0.0;
      for (int k = 0; k < K; k++)
        acc += A[i * K + k] * B[k * N + j];
      C[i * N + j] = acc;
    }
  }
}
