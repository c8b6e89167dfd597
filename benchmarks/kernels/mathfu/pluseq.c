/* mathfu pluseq: a += b element-wise over n entries. */
void pluseq(int *a, int *b, int n)
{
    for (int k = 0; k < n; k++)
        a[k] = a[k] + b[k];
}
