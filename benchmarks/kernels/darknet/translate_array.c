/* darknet translate_array: a[k] += s for every element of a vector of length n. */
void translate_array(int *a, int n, int s)
{
    int k;
    for (k = 0; k <= n - 1; k++)
        a[k] = a[k] + s;
}
