/* simpl_array fourth_in_place: arr[k] = arr[k]^4 in place, by squaring twice through the array. */
void fourth_in_place(int *arr, int n)
{
    for (int k = 0; k < n; k++) {
        arr[k] *= arr[k];
        arr[k] *= arr[k];
    }
}
