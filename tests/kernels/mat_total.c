int mat_total(int *A, int m, int n) { int t = 0; for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) t += A[i*n+j]; return t; }
