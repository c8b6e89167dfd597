/* dsp vscal: multiply every entry of arr by the scalar v in place. */
void vscal(int *arr, int v, int n)
{
    int k;
    for (k = 0; k < n; k++)
        arr[k] *= v;
}
