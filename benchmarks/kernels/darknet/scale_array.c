/* darknet scale_array: a[k] *= s for every element of a vector of length n. */
void scale_array(int *a, int n, int s)
{
    int k;
    for (k = 0; k < n; k++)
        a[k] = a[k] * s;
}
