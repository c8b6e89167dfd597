// a mutant of benchmarks/kernels/gemm/gemm_nn.c: the indices of B swapped
void gemm_nn(int M, int N, int K, int *A, int *B, int *C) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++) {
      int s = 0;
      for (int k = 0; k < K; k++) {
        s += A[i * K + k] * B[j * N + k];
      }
      C[i * N + j] = s;
    }
  }
}
