#include <stdint.h>
typedef float float32_t;
void offset_blk(const float32_t *pSrc, float32_t offset, float32_t *pDst, uint32_t blockSize)
{
    uint32_t blkCnt = blockSize;
    while (blkCnt != 0U) {
        *pDst = *pSrc + offset;
        pSrc++;
        pDst++;
        --blkCnt;
    }
}
