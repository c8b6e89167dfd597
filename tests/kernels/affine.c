/* the loop counter converted to float (C11 6.3.1.4) */
void affine(float *a, float s, int n) {
    for (int i = 0; i < n; i++)
        a[i] = s * i + 1.0f;
}
