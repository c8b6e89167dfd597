/* b[i] = b[i + 1] from the end: the ascending reading (b[i] = b0[i + 1]) is a tensor
   program, but C copies b[n - 1] everywhere: the commutation clause must fail. */
void shift_down(int *b, int n) {
  for (int i = n - 2; i >= 0; i--) b[i] = b[i + 1];
}
