/* darknet sum_array: sum of the n elements of a vector. */
int sum_array(int *a, int n)
{
    int k;
    int total = 0;
    for (k = 0; k < n; k++) {
        total += a[k];
    }
    return total;
}
