/* mathfu len_sq: squared length of a vector, sum of arr[k]^2 over n entries. */
int len_sq(int *arr, int n)
{
    int sq = 0;
    int k;
    for (k = 0; k < n; k++) {
        sq += arr[k] * arr[k];
    }
    return sq;
}
