// the probability that none of n independent events happens: prod (1 - p[i])
float survival_prob(int n, float *p) {
  float q = 1.0f;
  for (int i = 0; i < n; i++)
    q = q * (1.0f - p[i]);
  return q;
}
