package kb

import "golang.org/x/sys/cpu"

// hasAVX2 picks the AVX2 kernel: a plain Go loop reads about 1 GB/s of codes per core
// here, the kernel several times that, which is what a 100k-vector scan needs to stay
// within a few milliseconds.
var hasAVX2 = cpu.X86.HasAVX2

// dotAVX2 is Σ a[i]·q[i] over n elements, n a multiple of 32 (dot_amd64.s).
//
//go:noescape
func dotAVX2(a *int8, q *int16, n int) int32

func dotInt8(a []int8, q []int16) int32 {
	n := len(a) &^ 31
	if !hasAVX2 || n == 0 {
		return dotInt8Go(a, q)
	}
	s := dotAVX2(&a[0], &q[0], n)
	if n < len(a) {
		s += dotInt8Go(a[n:], q[n:len(a)])
	}
	return s
}
