package store

import (
	"testing"
	"unicode"
)

// TestIsCJKFastPaths checks the block shortcuts against the script tables for every code
// point of the Basic Multilingual Plane and beyond.
func TestIsCJKFastPaths(t *testing.T) {
	for r := rune(0); r <= 0x3FFFF; r++ {
		want := unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
		if IsCJK(r) != want {
			t.Fatalf("IsCJK(%U) = %v, want %v", r, !want, want)
		}
	}
}
