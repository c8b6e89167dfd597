/* darknet mult_add_into_cpu: Z += X * Y element-wise over N entries. */
void mult_add_into_cpu(int N, int *X, int *Y, int *Z)
{
    int k;
    for (k = 0; k < N; k++)
        Z[k] = Z[k] + X[k] * Y[k];
}
