/* darknet l2 loss, gradient part: delta[k] = truth[k] - pred[k]. */
void ol_l2_cpu2(int n, int *pred, int *truth, int *delta)
{
    int k;
    for (k = 0; k < n; k++) {
        int d = truth[k] - pred[k];
        delta[k] = d;
    }
}
