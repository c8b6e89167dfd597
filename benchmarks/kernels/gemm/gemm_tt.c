// C = A^T * B^T: A is K x M, B is N x K
void gemm_tt(int M, int N, int K, int *A, int *B, int *C) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++) {
      int s = 0;
      for (int k = 0; k < K; k++) {
        s += A[k * M + i] * B[j * K + k];
      }
      C[i * N + j] = s;
    }
  }
}
