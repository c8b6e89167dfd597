/* darknet l2 loss, error part: error[k] = (truth[k] - pred[k])^2. */
void ol_l2_cpu1(int n, int *pred, int *truth, int *error)
{
    int k;
    for (k = 0; k < n; k++) {
        int d = truth[k] - pred[k];
        error[k] = d * d;
    }
}
