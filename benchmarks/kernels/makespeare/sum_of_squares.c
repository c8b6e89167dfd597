/* makespeare sum_of_squares: sum of arr[k] * arr[k] over n entries. */
int sum_of_squares(int *arr, int n)
{
    int acc = 0;
    for (int k = 0; k < n; k++) {
        int v = arr[k];
        acc += v * v;
    }
    return acc;
}
