// C[i][j] (row i of ldc elements, N of them written) += sum_k A^T[i][k] * B^T[k][j]:
// both operands read as columns of matrices stored with leading dimensions
void gemm_ld_ijk_tt(int M, int N, int K, const double *A, int lda, const double *B, int ldb,
                    double *C, int ldc) {
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k) {
        s += A[i + k * lda] * B[k + j * ldb];
      }
      C[i * ldc + j] += s;
    }
  }
}
