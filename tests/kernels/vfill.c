/* a fill: every element of arr[0:n] becomes the loop-invariant v */
void vfill(int *arr, int v, int n) {
    for (int i = 0; i < n; i++)
        arr[i] = v;
}
