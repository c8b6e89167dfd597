/* issue 32, class 1: a long converted to float for a comparison must be rounded once
   (C11 6.3.1.4p2): (float)(2^53 + 2^29 + 1) is 2^53 + 2^30, not 2^53 as through double. */
void flag_gt_long(int n, float *score, long lim, int *flag) {
    for (int i = 0; i < n; i++)
        flag[i] = score[i] > lim;
}
