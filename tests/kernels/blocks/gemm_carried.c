// a mutant of benchmarks/kernels/gemm/gemm_nn.c: the accumulator reset once, not per element (a running total across rows)
void gemm_nn(int M, int N, int K, int *A, int *B, int *C) {
  int s = 0;
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++) {
      for (int k = 0; k < K; k++) {
        s += A[i * K + k] * B[k * N + j];
      }
      C[i * N + j] = s;
    }
  }
}
