void while_postdec(const double *x, double a, double *y, int n)
{
    while (n--) {
        *y = *y + a * *x;
        x++;
        y++;
    }
}
