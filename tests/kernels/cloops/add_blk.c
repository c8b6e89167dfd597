#include <stdint.h>
typedef float float32_t;
/* CMSIS-style: unsigned down-counter, walking pointers */
void add_blk(const float32_t *pSrcA, const float32_t *pSrcB, float32_t *pDst, uint32_t blockSize)
{
    uint32_t blkCnt;
    blkCnt = blockSize;
    while (blkCnt > 0U) {
        *pDst++ = (*pSrcA++) + (*pSrcB++);
        blkCnt--;
    }
}
