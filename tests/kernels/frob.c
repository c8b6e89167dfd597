float frob(float *A, int m, int n) { float s = 0.0f; for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) s += A[i*n+j] * A[i*n+j]; return s; }
