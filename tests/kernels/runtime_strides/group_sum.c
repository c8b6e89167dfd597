/* The first element of every group of gs elements, summed: a loop stepped by a run-time
   group size (a global, as a quantized model keeps it). */
int gs;

float group_heads(const float *x, int n)
{
    float s = 0.0f;
    for (int j = 0; j < n; j += gs)
        s += x[j];
    return s;
}
