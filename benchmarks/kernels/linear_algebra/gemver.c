/* A double rank-1 update, a transposed matrix-vector product of the updated matrix, a vector
   update and a matrix-vector product: four loop phases (a matrix output first). */
void gemver(int N, float alpha, float beta, float *A, float *u1, float *v1, float *u2, float *v2, float *w, float *x, float *y, float *z) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) A[i*N + j] = A[i*N + j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) x[i] = x[i] + beta * A[j*N + i] * y[j];
  for (int i = 0; i < N; i++) x[i] = x[i] + z[i];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) w[i] = w[i] + alpha * A[i*N + j] * x[j];
}
