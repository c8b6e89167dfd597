typedef enum { LINEAR, RELU, LEAKY } activation;
enum { UNROLL = 1, SHIFT = -2 };
void enum_act(float *x, int n, int kind) {
  activation a = kind == 1 ? RELU : LEAKY;
  for (int i = 0; i < n; i += UNROLL) {
    if (a == RELU) x[i] = x[i] > 0 ? x[i] : 0;
    else if (a == LEAKY) x[i] = x[i] > 0 ? x[i] : .1f * x[i];
    x[i] += SHIFT;
  }
}
