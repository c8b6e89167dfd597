float softmax_max(float *input, int max_pos) {
  float max_val = input[0];
  for (int i = 1; i < max_pos; i++) {
    if (input[i] > max_val) max_val = input[i];
  }
  return max_val;
}
