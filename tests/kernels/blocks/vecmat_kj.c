// y[j] += x[k] * A[k][j] for a row-major A: the k, j order of a vector-matrix product
void vecmat_kj(int K, int N, const int *x, const int *A, int *y) {
  for (int k = 0; k < K; k++) {
    int xk = x[k];
    for (int j = 0; j < N; j++) {
      y[j] += xk * A[k * N + j];
    }
  }
}
