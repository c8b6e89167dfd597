/* reads what the previous iteration wrote: must not lift */
void recurrence(int *a, int n)
{
    for (int i = 1; i < n; i++)
        a[i] = a[i - 1] + a[i];
}
