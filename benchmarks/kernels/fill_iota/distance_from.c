/* |i - c| for every position: the counter in a select */
void distance_from(int *d, int c, int n) {
    for (int i = 0; i < n; i++)
        d[i] = i > c ? i - c : c - i;
}
