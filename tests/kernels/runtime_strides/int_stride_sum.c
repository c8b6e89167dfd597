/* An integer sum over a strided column (stride = row length). */
long column_sum(const int *m, int rows, int ld)
{
    long s = 0;
    for (int r = 0; r < rows; r++)
        s += m[r * ld];
    return s;
}
