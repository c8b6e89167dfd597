// 3-D elementwise a + 2*b over flat row-major arrays (P x R x C)
void tensor3_add(int P, int R, int C, int *A, int *B, int *out) {
  for (int i = 0; i < P; i++)
    for (int j = 0; j < R; j++)
      for (int k = 0; k < C; k++)
        out[(i * R + j) * C + k] = A[(i * R + j) * C + k] + 2 * B[(i * R + j) * C + k];
}
