/* Scores of one query against the keys (one head), scaled, then a softmax over them:
   three loops in one function (the scores loop is a matrix-vector product). */
#include <math.h>
void attention_scores(float *q, float *k, float *att, int seq, int hd, float scale) {
  for (int t = 0; t < seq; t++) {
    float s = 0.0f;
    for (int d = 0; d < hd; d++) s += q[d] * k[t * hd + d];
    att[t] = s * scale;
  }
  float m = att[0];
  for (int t = 1; t < seq; t++) if (att[t] > m) m = att[t];
  float sum = 0.0f;
  for (int t = 0; t < seq; t++) { att[t] = expf(att[t] - m); sum += att[t]; }
  for (int t = 0; t < seq; t++) att[t] = att[t] / sum;
}
