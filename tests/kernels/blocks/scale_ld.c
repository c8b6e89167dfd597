// C[i][j] *= beta for the first N of each row of ldc elements: a two-deep nest over a block
void scale_ld(int M, int N, double beta, double *C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      C[i * ldc + j] *= beta;
}
