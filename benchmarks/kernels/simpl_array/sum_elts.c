/* simpl_array sum_elts: sum of the n entries of arr. */
int sum_elts(int *arr, int n)
{
    int acc = 0;
    int k;
    for (k = 0; k <= n - 1; k++) {
        acc += arr[k];
    }
    return acc;
}
