// C = beta*C + alpha*A*op(B) on blocks of rows stored with leading dimensions: a two-deep
// scaling nest, then one of two helpers (loops inside them) chosen by a flag
static void ab_nn(int M, int N, int K, float alpha, const float *A, int lda, const float *B, int ldb,
                  float *C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      float a = alpha * A[i * lda + k];
      for (int j = 0; j < N; ++j)
        C[i * ldc + j] += a * B[k * ldb + j];
    }
}

static void ab_nt(int M, int N, int K, float alpha, const float *A, int lda, const float *B, int ldb,
                  float *C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0;
      for (int k = 0; k < K; ++k)
        s += alpha * A[i * lda + k] * B[j * ldb + k];
      C[i * ldc + j] += s;
    }
}

void gemm_ld_beta_paths(int TB, int M, int N, int K, float alpha, const float *A, int lda, const float *B,
                        int ldb, float beta, float *C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      C[i * ldc + j] *= beta;
  if (!TB)
    ab_nn(M, N, K, alpha, A, lda, B, ldb, C, ldc);
  else
    ab_nt(M, N, K, alpha, A, lda, B, ldb, C, ldc);
}
