#include <math.h>
void layernorm(float *x, float *g, float *b, float *out, int n) {
  float mean = 0.0f;
  for (int i = 0; i < n; i++) mean += x[i];
  mean = mean / n;
  float var = 0.0f;
  for (int i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean);
  var = var / n;
  float inv = 1.0f / sqrtf(var + 1e-5f);
  for (int i = 0; i < n; i++) out[i] = (x[i] - mean) * inv * g[i] + b[i];
}
