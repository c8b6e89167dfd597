// BLAS-style C = alpha * A * B + beta * C (float)
void sgemm_alpha_beta(int M, int N, int K, float alpha, float beta, float *A, float *B, float *C) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++) {
      float acc = 0.0f;
      for (int k = 0; k < K; k++) {
        acc += A[i * K + k] * B[k * N + j];
      }
      C[i * N + j] = alpha * acc + beta * C[i * N + j];
    }
  }
}
