; C[20x3] = A[20x35] . B[35x3]
.isa gemmini dim=16 config=int8
.region A 0x1000 700 int8
.region B 0x1400 105 int8
.region C 0x1800 240 int32
config_ex 1, 0, 0, 1.0, 0, 1, 0, 0
config_st 12
config_ld 35, 1.0, 0, 0
config_ld 3, 1.0, 0, 1
mvin2 0x1400, 0x1000, 3, 16
mvin2 0x1430, 0x1040, 3, 16
mvin2 0x1460, 0x1080, 3, 3
mvin 0x1000, 0x0, 35, 16
mvin 0x1230, 0x100, 35, 4
preload 0x1000, 0x80000000, 3, 16, 3, 16
compute_preloaded 0x0, 0xffffffff, 16, 16, 16, 16
preload 0xffffffff, 0x80000040, 16, 16, 3, 4
compute_accumulated 0x100, 0xffffffff, 16, 4, 16, 16
preload 0x1040, 0xc0000000, 3, 16, 3, 16
compute_preloaded 0x10, 0xffffffff, 16, 16, 16, 16
preload 0xffffffff, 0xc0000040, 16, 16, 3, 4
compute_accumulated 0x110, 0xffffffff, 16, 4, 16, 16
preload 0x1080, 0xc0000000, 3, 3, 3, 16
compute_preloaded 0x20, 0xffffffff, 3, 16, 16, 16
preload 0xffffffff, 0xc0000040, 16, 16, 3, 4
compute_accumulated 0x120, 0xffffffff, 3, 4, 16, 16
mvout 0x1800, 0xa0000000, 3, 16
mvout 0x18c0, 0xa0000040, 3, 4
fence
