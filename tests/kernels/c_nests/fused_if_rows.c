// if (c) for (H) S1 else for (H) S2 inside a loop: the two loops of one header fused into one
// loop over "if (c) S1 else S2" (c fixed across the loop)
void fused_if_rows(int m, int n, int flag, const int *A, int *out) {
  for (int i = 0; i < m; i++) {
    if (flag != 0) {
      for (int j = 0; j < n; j++) out[i * n + j] = A[i * n + j] + 1;
    } else {
      for (int j = 0; j < n; j++) out[i * n + j] = A[i * n + j] - 1;
    }
  }
}
