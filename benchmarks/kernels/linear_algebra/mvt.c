/* Two matrix-vector products, the second with the transpose: two loop nests in one function. */
void mvt(int N, float *x1, float *x2, float *y1, float *y2, float *A) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) x1[i] = x1[i] + A[i*N + j] * y1[j];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) x2[i] = x2[i] + A[j*N + i] * y2[j];
}
