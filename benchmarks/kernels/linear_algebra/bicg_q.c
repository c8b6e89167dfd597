/* The q half of BiCG: a zero fill and a matrix-vector product, two phases. */
void bicg_q(int M, int N, float *A, float *p, float *q, float *s) {
  for (int i = 0; i < M; i++) s[i] = 0.0f;
  for (int i = 0; i < N; i++) {
    q[i] = 0.0f;
    for (int j = 0; j < M; j++) q[i] = q[i] + A[i * M + j] * p[j];
  }
}
