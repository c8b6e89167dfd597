/* dsp vrecip: integer reciprocal arr[k] = 1 / arr[k] in place (C division, truncating). */
void vrecip(int *arr, int n)
{
    for (int k = 0; k < n; k++) {
        int d = arr[k];
        arr[k] = 1 / d;
    }
}
