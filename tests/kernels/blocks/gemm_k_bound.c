// a mutant of benchmarks/kernels/gemm/gemm_nn.c: a wrong bound of the reduction loop
void gemm_nn(int M, int N, int K, int *A, int *B, int *C) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++) {
      int s = 0;
      for (int k = 0; k < K - 1; k++) {
        s += A[i * K + k] * B[k * N + j];
      }
      C[i * N + j] = s;
    }
  }
}
