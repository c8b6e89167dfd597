#include <stdint.h>
// int products stored into an unsigned char matrix (wraps modulo 256): C = (A * B^T) mod 256
void gemm_nt_u8_out(int *A, int *B, uint8_t *C, int m, int n, int p) {
  for (int i = 0; i < p; ++i) {
    for (int j = 0; j < m; j++) {
      int acc = 0;
      for (int k = 0; k < n; k++)
        acc = acc + A[i * n + k] * B[j * n + k];
      C[i * m + j] = acc;
    }
  }
}
