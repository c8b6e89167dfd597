void do_while(const float *x, float *y, int n)
{
    if (n <= 0) return;
    do {
        *y++ = 2.0f * *x++;
    } while (--n);
}
