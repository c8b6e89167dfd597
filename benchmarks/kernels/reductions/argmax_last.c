// index of the last largest score (ties move the index: >=)
int argmax_last(int n, float *score) {
  int best = -1;
  float m = -1e30f;
  for (int i = 0; i < n; i++) {
    if (score[i] >= m) {
      best = i;
      m = score[i];
    }
  }
  return best;
}
