/* darknet mag_array: squared magnitude of a vector, sum of a[k] * a[k] (the sqrt is left to the caller). */
int mag_array(int *a, int n)
{
    int k;
    int total = 0;
    for (k = 0; k < n; k++) {
        total += a[k] * a[k];
    }
    return total;
}
