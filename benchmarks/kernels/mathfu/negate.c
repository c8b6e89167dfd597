/* mathfu negate: arr[k] = -arr[k] in place over n entries. */
void negate(int *arr, int n)
{
    for (int k = 0; k < n; k++) {
        int v = arr[k];
        arr[k] = -v;
    }
}
