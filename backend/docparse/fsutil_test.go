package docparse

import "os"

func writeFile(p, s string) error       { return os.WriteFile(p, []byte(s), 0o600) }
func readFile(p string) ([]byte, error) { return os.ReadFile(p) }
