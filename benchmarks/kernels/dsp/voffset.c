/* dsp voffset: add the constant v to every entry of arr in place. */
void voffset(int *arr, int v, int n)
{
    for (int k = 0; k < n; k++)
        arr[k] = arr[k] + v;
}
