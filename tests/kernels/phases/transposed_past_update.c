/* The second nest reads A transposed with one more row than the first nest updated. */
void transposed_past_update(int N, float *A, float *u, float *v, float *x, float *y) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) A[i * N + j] = A[i * N + j] + u[i] * v[j];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N + 1; j++) x[i] = x[i] + A[j * N + i] * y[j];
}
