/* simpl_array array_sum: sum of the n entries of arr. */
int array_sum(int *arr, int n)
{
    int total = 0;
    for (int k = 0; k < n; k++)
        total = total + arr[k];
    return total;
}
