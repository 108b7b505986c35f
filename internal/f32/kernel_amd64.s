#include "textflag.h"

// The 6×16 micro-kernel keeps the tile in Y0..Y11 (row i in Y(2i):Y(2i+1)),
// loads one row of B (16 values) into Y12:Y13 per step and broadcasts the
// six A values of that step through Y14/Y15.

// FMA6 multiplies the B row in Y12:Y13 by the A values at the six operands.
#define FMA6(a0, a1, a2, a3, a4, a5) \
	VBROADCASTSS a0, Y14; \
	VBROADCASTSS a1, Y15; \
	VFMADD231PS Y12, Y14, Y0; \
	VFMADD231PS Y13, Y14, Y1; \
	VFMADD231PS Y12, Y15, Y2; \
	VFMADD231PS Y13, Y15, Y3; \
	VBROADCASTSS a2, Y14; \
	VBROADCASTSS a3, Y15; \
	VFMADD231PS Y12, Y14, Y4; \
	VFMADD231PS Y13, Y14, Y5; \
	VFMADD231PS Y12, Y15, Y6; \
	VFMADD231PS Y13, Y15, Y7; \
	VBROADCASTSS a4, Y14; \
	VBROADCASTSS a5, Y15; \
	VFMADD231PS Y12, Y14, Y8; \
	VFMADD231PS Y13, Y14, Y9; \
	VFMADD231PS Y12, Y15, Y10; \
	VFMADD231PS Y13, Y15, Y11

// LOADB loads the B row at BX and advances BX by the B step (R9 bytes).
#define LOADB \
	VMOVUPS (BX), Y12; \
	VMOVUPS 32(BX), Y13; \
	ADDQ R9, BX

// C row = acc + float32(beta*C row) (beta broadcast in Y15).
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

#define ZERO12 \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7; \
	VXORPS Y8, Y8, Y8; \
	VXORPS Y9, Y9, Y9; \
	VXORPS Y10, Y10, Y10; \
	VXORPS Y11, Y11, Y11

// Writes the tile to C at DI (row stride DX bytes): C = acc when loadc is
// 0, else C = acc + float32(beta*C).
#define WRITEC \
	MOVQ  loadc+64(FP), R8; \
	TESTQ R8, R8; \
	JEQ   overwrite; \
	VBROADCASTSS beta+56(FP), Y15; \
	LOADSTORE(Y0, Y1); \
	LOADSTORE(Y2, Y3); \
	LOADSTORE(Y4, Y5); \
	LOADSTORE(Y6, Y7); \
	LOADSTORE(Y8, Y9); \
	LOADSTORE(Y10, Y11); \
	VZEROUPPER; \
	RET; \
overwrite: \
	STORE(Y0, Y1); \
	STORE(Y2, Y3); \
	STORE(Y4, Y5); \
	STORE(Y6, Y7); \
	STORE(Y8, Y9); \
	STORE(Y10, Y11); \
	VZEROUPPER; \
	RET

// func kern6x16(k int, a *float32, as int, b *float32, bs int, c *float32, ldc int, beta float32, loadc int)
//
// A(i, p) is a[i + p*as] (a packed sliver, as = 6, or a transposed A),
// B(p, j) is b[j + p*bs]: acc = sum over p of A(i,p)*B(p,j), fused
// multiply-adds in p order.
TEXT ·kern6x16(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ as+16(FP), R10
	SHLQ $2, R10
	MOVQ b+24(FP), BX
	MOVQ bs+32(FP), R9
	SHLQ $2, R9
	MOVQ c+40(FP), DI
	MOVQ ldc+48(FP), DX
	SHLQ $2, DX
	ZERO12

loop4:
	CMPQ CX, $4
	JLT  tail
	LOADB
	FMA6((AX), 4(AX), 8(AX), 12(AX), 16(AX), 20(AX))
	ADDQ R10, AX
	LOADB
	FMA6((AX), 4(AX), 8(AX), 12(AX), 16(AX), 20(AX))
	ADDQ R10, AX
	LOADB
	FMA6((AX), 4(AX), 8(AX), 12(AX), 16(AX), 20(AX))
	ADDQ R10, AX
	LOADB
	FMA6((AX), 4(AX), 8(AX), 12(AX), 16(AX), 20(AX))
	ADDQ R10, AX
	SUBQ $4, CX
	JMP  loop4

tail:
	TESTQ CX, CX
	JEQ   done
	LOADB
	FMA6((AX), 4(AX), 8(AX), 12(AX), 16(AX), 20(AX))
	ADDQ  R10, AX
	DECQ  CX
	JMP   tail

done:
	WRITEC

// func kern6x16r(k int, a *float32, lda int, b *float32, bs int, c *float32, ldc int, beta float32, loadc int)
//
// As kern6x16 with A(i, p) = a[i*lda + p] (A read in place, row-major).
TEXT ·kern6x16r(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ lda+16(FP), R10
	SHLQ $2, R10
	LEAQ (AX)(R10*2), R11
	ADDQ R10, R11 // R11: row 3
	MOVQ b+24(FP), BX
	MOVQ bs+32(FP), R9
	SHLQ $2, R9
	MOVQ c+40(FP), DI
	MOVQ ldc+48(FP), DX
	SHLQ $2, DX
	ZERO12

rloop4:
	CMPQ CX, $4
	JLT  rtail
	LOADB
	FMA6((AX), (AX)(R10*1), (AX)(R10*2), (R11), (R11)(R10*1), (R11)(R10*2))
	LOADB
	FMA6(4(AX), 4(AX)(R10*1), 4(AX)(R10*2), 4(R11), 4(R11)(R10*1), 4(R11)(R10*2))
	LOADB
	FMA6(8(AX), 8(AX)(R10*1), 8(AX)(R10*2), 8(R11), 8(R11)(R10*1), 8(R11)(R10*2))
	LOADB
	FMA6(12(AX), 12(AX)(R10*1), 12(AX)(R10*2), 12(R11), 12(R11)(R10*1), 12(R11)(R10*2))
	ADDQ $16, AX
	ADDQ $16, R11
	SUBQ $4, CX
	JMP  rloop4

rtail:
	TESTQ CX, CX
	JEQ   rdone
	LOADB
	FMA6((AX), (AX)(R10*1), (AX)(R10*2), (R11), (R11)(R10*1), (R11)(R10*2))
	ADDQ  $4, AX
	ADDQ  $4, R11
	DECQ  CX
	JMP   rtail

rdone:
	WRITEC

// Horizontal sum of the 8 lanes of y (x is its low half) into the low lane,
// in a fixed order: (lo128 + hi128), then pairs, then the last two.
#define HSUM(y, x, off) \
	VEXTRACTF128 $1, y, X15; \
	VADDPS X15, x, x; \
	VMOVHLPS x, X15, X15; \
	VADDPS X15, x, x; \
	VMOVSHDUP x, X15; \
	VADDSS X15, x, x; \
	VMOVSS x, off(R13)

// func dot3x4(k int, a0, a1, a2, b0, b1, b2, b3, out *float32)
//
// out[4i+j] = dot(a_i[:k], b_j[:k]) for k a multiple of 8: 8-lane partial
// sums with fused multiply-adds in p order, then HSUM.
TEXT ·dot3x4(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	SHLQ $2, CX
	MOVQ a0+8(FP), SI
	MOVQ a1+16(FP), DI
	MOVQ a2+24(FP), R8
	MOVQ b0+32(FP), R9
	MOVQ b1+40(FP), R10
	MOVQ b2+48(FP), R11
	MOVQ b3+56(FP), R12
	MOVQ out+64(FP), R13
	ZERO12
	XORQ AX, AX

dloop:
	CMPQ AX, CX
	JGE  dreduce
	VMOVUPS (SI)(AX*1), Y12
	VMOVUPS (DI)(AX*1), Y13
	VMOVUPS (R8)(AX*1), Y14
	VMOVUPS (R9)(AX*1), Y15
	VFMADD231PS Y15, Y12, Y0
	VFMADD231PS Y15, Y13, Y4
	VFMADD231PS Y15, Y14, Y8
	VMOVUPS (R10)(AX*1), Y15
	VFMADD231PS Y15, Y12, Y1
	VFMADD231PS Y15, Y13, Y5
	VFMADD231PS Y15, Y14, Y9
	VMOVUPS (R11)(AX*1), Y15
	VFMADD231PS Y15, Y12, Y2
	VFMADD231PS Y15, Y13, Y6
	VFMADD231PS Y15, Y14, Y10
	VMOVUPS (R12)(AX*1), Y15
	VFMADD231PS Y15, Y12, Y3
	VFMADD231PS Y15, Y13, Y7
	VFMADD231PS Y15, Y14, Y11
	ADDQ $32, AX
	JMP  dloop

dreduce:
	HSUM(Y0, X0, 0)
	HSUM(Y1, X1, 4)
	HSUM(Y2, X2, 8)
	HSUM(Y3, X3, 12)
	HSUM(Y4, X4, 16)
	HSUM(Y5, X5, 20)
	HSUM(Y6, X6, 24)
	HSUM(Y7, X7, 28)
	HSUM(Y8, X8, 32)
	HSUM(Y9, X9, 36)
	HSUM(Y10, X10, 40)
	HSUM(Y11, X11, 44)
	VZEROUPPER
	RET
