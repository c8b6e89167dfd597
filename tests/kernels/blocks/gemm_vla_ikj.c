// C := alpha*A*B + beta*C on C99 2-D array parameters, each row of C scaled and then
// updated over k in the i, k, j order (the order of the reference BLAS and PolyBench)
void gemm_vla_ikj(int ni, int nj, int nk, double alpha, double beta, double C[ni][nj], double A[ni][nk],
                  double B[nk][nj]) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
