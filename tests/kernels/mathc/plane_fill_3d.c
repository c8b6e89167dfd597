/* A 3-D array parameter with constant inner dimensions, written in place (issue 34). */
#define ROWS 3
#define COLS 4
void plane_fill_3d(int np, float A[][ROWS][COLS], float v) {
  for (int p = 0; p < np; p++)
    for (int r = 0; r < ROWS; r++)
      for (int c = 0; c < COLS; c++) A[p][r][c] = A[p][r][c] > v ? v : A[p][r][c];
}
