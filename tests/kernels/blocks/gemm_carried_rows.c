// a mutant of benchmarks/kernels/gemm/gemm_nn.c: B replaced by the output C (reads rows other rows write)
void gemm_nn(int M, int N, int K, int *A, int *B, int *C) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++) {
      int s = C[i * N + j];
      for (int k = 0; k < K; k++) {
        s += A[i * K + k] * C[k * N + j];
      }
      C[i * N + j] = s;
    }
  }
}
