#include "textflag.h"

// func dotAVX2(a *int8, q *int16, n int) int32
// 32 codes per round: sign-extended to int16, multiplied with the query's int16 and
// summed in pairs into int32 lanes (VPMADDWD), two accumulators.
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ q+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1

loop:
	CMPQ      CX, $32
	JL        done
	VPMOVSXBW (SI), Y2
	VPMADDWD  (DI), Y2, Y2
	VPADDD    Y2, Y0, Y0
	VPMOVSXBW 16(SI), Y3
	VPMADDWD  32(DI), Y3, Y3
	VPADDD    Y3, Y1, Y1
	ADDQ      $32, SI
	ADDQ      $64, DI
	SUBQ      $32, CX
	JMP       loop

done:
	VPADDD       Y0, Y1, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X0, X1, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X0, X1, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X0, X1, X0
	VMOVD        X0, AX
	MOVL         AX, ret+24(FP)
	VZEROUPPER
	RET
