// a mutant of gemm_ld_ijk_tt.c writing N + 1 elements of rows of N: the rows overlap
void gemm_ld_rows_overlap(int M, int N, int K, const double *A, const double *B, double *C) {
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j <= N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k) {
        s += A[i * K + k] * B[k * N + j];
      }
      C[i * N + j] = s;
    }
  }
}
