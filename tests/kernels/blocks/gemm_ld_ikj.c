// C[0:M rows of ldc][:, :N] += alpha * A * B: an i, k, j nest with A's element hoisted out
// of the inner loop and leading dimensions lda, ldb, ldc (BLAS's storage of a block)
void gemm_ld_ikj(int M, int N, int K, float alpha, const float *A, int lda, const float *B, int ldb,
                 float *C, int ldc) {
  int i, j, k;
  for (i = 0; i < M; ++i) {
    for (k = 0; k < K; ++k) {
      float a = alpha * A[i * lda + k];
      for (j = 0; j < N; ++j) {
        C[i * ldc + j] += a * B[k * ldb + j];
      }
    }
  }
}
