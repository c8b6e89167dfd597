/* darknet mse_array: sum of squares of an error vector (the mean and sqrt are left to the caller). */
int mse_array(int *a, int n)
{
    int k;
    int err = 0;
    for (k = 0; k <= n - 1; k++)
        err += a[k] * a[k];
    return err;
}
