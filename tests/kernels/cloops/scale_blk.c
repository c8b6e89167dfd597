#include <stdint.h>
typedef float float32_t;
void scale_blk(const float32_t *pSrc, float32_t scale, float32_t *pDst, uint32_t blockSize)
{
    uint32_t blkCnt = blockSize;
    while (blkCnt > 0U) {
        *pDst++ = (*pSrc++) * scale;
        blkCnt--;
    }
}
