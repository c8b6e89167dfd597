// not interchangeable: iteration (k, j) updates y[j + k], so the same element is updated by
// different j at different k (a dependence of distance (1, -1)), and it is not a tensor
// program of the row shapes
void gemm_ikj_skewed(int K, int N, const int *x, const int *A, int *y) {
  for (int k = 0; k < K; k++) {
    int xk = x[k];
    for (int j = 0; j < N; j++) {
      y[j + k] += xk * A[k * N + j];
    }
  }
}
