package apperr

import (
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"short", "purple", `"purple"`},
		{"empty", "", `""`},
		{"controls escaped", "a\x1b[2J\r\u202e", `"a\x1b[2J\r\u202e"`},
		{"64 kept whole", strings.Repeat("a", 64), `"` + strings.Repeat("a", 64) + `"`},
		{"long shortened", strings.Repeat("a", 100000), `"` + strings.Repeat("a", 24) + `…" (100,000 characters)`},
		{"long counted in characters", strings.Repeat("文", 70), `"` + strings.Repeat("文", 24) + `…" (70 characters)`},
		{"invalid bytes", "\xff" + strings.Repeat("b", 80), `"\xff` + strings.Repeat("b", 23) + `…" (81 characters)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Quote(tt.in); got != tt.want {
				t.Fatalf("Quote = %q, want %q", got, tt.want)
			}
		})
	}
}
