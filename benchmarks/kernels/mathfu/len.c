/* mathfu len: squared length of a vector, sum of arr[k]^2 (as in the C2TACO integer version, no sqrt). */
int len(int *arr, int n)
{
    int sq = 0;
    for (int k = 0; k < n; k++)
        sq = sq + arr[k] * arr[k];
    return sq;
}
