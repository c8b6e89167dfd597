/* A strided copy into a strided destination, scaled, one element past the stride. */
void scale_copy(int n, const int *src, int sinc, int *dst, int dinc, int k)
{
    for (int i = 0; i < n; i++) dst[dinc * i + 1] = k * src[i * sinc];
}
