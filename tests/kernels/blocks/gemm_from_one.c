// a mutant of benchmarks/kernels/gemm/gemm_nn.c: the outer loop from 1
void gemm_nn(int M, int N, int K, int *A, int *B, int *C) {
  for (int i = 1; i < M; i++) {
    for (int j = 0; j < N; j++) {
      int s = 0;
      for (int k = 0; k < K; k++) {
        s += A[i * K + k] * B[k * N + j];
      }
      C[i * N + j] = s;
    }
  }
}
