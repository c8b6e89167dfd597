typedef struct layer {
  int batch;
  int outputs;
  float *output;
  float *delta;
} layer;
void layer_relu(const layer *l) {
  for (int i = 0; i < l->outputs; ++i) l->output[i] = l->output[i] > 0 ? l->output[i] : 0;
}
