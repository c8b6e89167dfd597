/* simpl_array array_inc: add 1 to every entry of arr in place. */
void array_inc(int *arr, int n)
{
    for (int k = 0; k < n; k++)
        arr[k]++;
}
