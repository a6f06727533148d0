package kb

// dotInt8Go is the portable int8 × int16 dot product: the fallback where there is no
// vector kernel, and the reference the kernel is tested against. Codes are in −127..127
// and the query in −127..127 too, so 768 products fit an int32 many times over.
func dotInt8Go(a []int8, q []int16) int32 {
	q = q[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(q[i])
		s1 += int32(a[i+1]) * int32(q[i+1])
		s2 += int32(a[i+2]) * int32(q[i+2])
		s3 += int32(a[i+3]) * int32(q[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(q[i])
	}
	return s0 + s1 + s2 + s3
}
