/* clear a buffer after its first `from` elements (a fill from a symbolic start) */
void memset_tail(unsigned char *buf, unsigned char value, int from, int n) {
    for (int i = from; i < n; i++)
        buf[i] = value;
}
