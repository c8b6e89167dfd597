// a three-deep nest adding a vector to every row of every block (found by the kernel fuzzer:
// the SMT encoding had no element of a flattened computed matrix)
void row_broadcast3(int m, int n, int p, int *T, int *x, int *C) {
  for (long i = 0; i < m; i++) {
    for (int j = 0; j < p; j++) {
      for (int l = 0; l < n; l++)
        C[((i * p + j) * n + l)] = T[((i * p + j) * n + l)] + x[l];
    }
  }
}
