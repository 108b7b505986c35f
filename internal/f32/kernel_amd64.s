#include "textflag.h"

// One step of the 6×16 kernel: B row p in Y12:Y13, A(i,p) broadcast,
// accumulators Y0..Y11 (row i in Y(2i):Y(2i+1)). ao, bo: byte offsets.
#define STEP(ao, bo) \
	VMOVUPS bo(BX), Y12; \
	VMOVUPS bo+32(BX), Y13; \
	VBROADCASTSS ao(AX), Y14; \
	VBROADCASTSS ao+4(AX), Y15; \
	VFMADD231PS Y12, Y14, Y0; \
	VFMADD231PS Y13, Y14, Y1; \
	VFMADD231PS Y12, Y15, Y2; \
	VFMADD231PS Y13, Y15, Y3; \
	VBROADCASTSS ao+8(AX), Y14; \
	VBROADCASTSS ao+12(AX), Y15; \
	VFMADD231PS Y12, Y14, Y4; \
	VFMADD231PS Y13, Y14, Y5; \
	VFMADD231PS Y12, Y15, Y6; \
	VFMADD231PS Y13, Y15, Y7; \
	VBROADCASTSS ao+16(AX), Y14; \
	VBROADCASTSS ao+20(AX), Y15; \
	VFMADD231PS Y12, Y14, Y8; \
	VFMADD231PS Y13, Y14, Y9; \
	VFMADD231PS Y12, Y15, Y10; \
	VFMADD231PS Y13, Y15, Y11

// C row = acc + float32(beta*C row), or acc alone (see STORE).
#define LOADSTORE(lo, hi) \
	VMULPS (DI), Y15, Y12; \
	VMULPS 32(DI), Y15, Y13; \
	VADDPS Y12, lo, lo; \
	VADDPS Y13, hi, hi; \
	VMOVUPS lo, (DI); \
	VMOVUPS hi, 32(DI); \
	ADDQ DX, DI

#define STORE(lo, hi) \
	VMOVUPS lo, (DI); \
	VMOVUPS hi, 32(DI); \
	ADDQ DX, DI

// func kern6x16(k int, a, b, c *float32, ldc int, beta float32, loadc int)
TEXT ·kern6x16(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), DX
	SHLQ $2, DX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

loop4:
	CMPQ CX, $4
	JLT  tail
	STEP(0, 0)
	STEP(24, 64)
	STEP(48, 128)
	STEP(72, 192)
	ADDQ $96, AX
	ADDQ $256, BX
	SUBQ $4, CX
	JMP  loop4

tail:
	TESTQ CX, CX
	JEQ   done
	STEP(0, 0)
	ADDQ  $24, AX
	ADDQ  $64, BX
	DECQ  CX
	JMP   tail

done:
	MOVQ  loadc+48(FP), R8
	TESTQ R8, R8
	JEQ   overwrite
	VBROADCASTSS beta+40(FP), Y15
	LOADSTORE(Y0, Y1)
	LOADSTORE(Y2, Y3)
	LOADSTORE(Y4, Y5)
	LOADSTORE(Y6, Y7)
	LOADSTORE(Y8, Y9)
	LOADSTORE(Y10, Y11)
	VZEROUPPER
	RET

overwrite:
	STORE(Y0, Y1)
	STORE(Y2, Y3)
	STORE(Y4, Y5)
	STORE(Y6, Y7)
	STORE(Y8, Y9)
	STORE(Y10, Y11)
	VZEROUPPER
	RET
