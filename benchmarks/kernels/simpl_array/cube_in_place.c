/* simpl_array cube_in_place: arr[k] = arr[k]^3 in place over n entries. */
void cube_in_place(int *arr, int n)
{
    for (int k = 0; k < n; k++) {
        int v = arr[k];
        arr[k] = v * v * v;
    }
}
