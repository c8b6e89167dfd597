void rowmax(int *A, int *out, int m, int n) { for (int i = 0; i < m; i++) { int best = -100000; for (int j = 0; j < n; j++) if (A[i*n+j] > best) best = A[i*n+j]; out[i] = best; } }
