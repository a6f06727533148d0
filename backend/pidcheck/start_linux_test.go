package pidcheck

import "testing"

func TestParseStat(t *testing.T) {
	rest := " S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 424242 20 21"
	tests := []struct {
		name string
		line string
		want int64
		ok   bool
	}{
		{"plain", "123 (cairn)" + rest, 424242, true},
		{"name with spaces and parentheses", "123 (a) b (c)" + rest, 424242, true},
		{"truncated", "123 (cairn) S 1 2 3", 0, false},
		{"no name", "123 cairn S", 0, false},
		{"not a number", "123 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 soon", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseStat([]byte(tt.line))
			if got != tt.want || ok != tt.ok {
				t.Fatalf("parseStat = %d, %v; want %d, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
