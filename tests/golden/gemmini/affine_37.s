; out[0:37] = 2*x0 - x1 + c
.isa gemmini dim=16 config=int8
config_st 64
config_ld 64, 2.0, 0, 0
config_ld 64, -1.0, 0, 1
config_ld 0, 1.0, 0, 2
mvin 0x1000, 0x80000000, 16, 2
mvin2 0x1400, 0xc0000000, 16, 2
mvin3 0x1800, 0xc0000000, 16, 2
mvout 0x1900, 0xa0000000, 16, 2
mvin 0x1080, 0x80000010, 5, 1
mvin2 0x1480, 0xc0000010, 5, 1
mvin3 0x1800, 0xc0000010, 5, 1
mvout 0x1980, 0xa0000010, 5, 1
fence
