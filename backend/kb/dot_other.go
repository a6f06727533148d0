//go:build !amd64

package kb

const hasAVX2 = false

func dotInt8(a []int8, q []int16) int32 { return dotInt8Go(a, q) }
