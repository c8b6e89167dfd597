/* The darkest pixel of an 8-bit image row. */
int darkest_pixel(unsigned char *img, int n) {
  int m = 255;
  for (int i = 0; i < n; i++) if (img[i] < m) m = img[i];
  return m;
}
