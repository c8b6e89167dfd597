/* A C99 variable length 3-D array parameter: planes of R rows of C elements (issue 34). */
void scale_3d(int np, int nr, int nc, double s, double A[np][nr][nc], double B[np][nr][nc]) {
  for (int p = 0; p < np; p++)
    for (int r = 0; r < nr; r++)
      for (int c = 0; c < nc; c++) B[p][r][c] = s * A[p][r][c] + 1.0;
}
