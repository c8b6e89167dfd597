/* dsp vneg: negate every entry of arr in place. */
void vneg(int *arr, int n)
{
    for (int k = 0; k < n; k++)
        arr[k] = 0 - arr[k];
}
