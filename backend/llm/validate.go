package llm

import (
	"fmt"
	"net/url"
	"strconv"
	"unicode"

	"github.com/cairn-app/cairn/backend/apperr"
)

// badKeyChar finds the first character of an API key that cannot be sent: a control
// character (a pasted line break or tab), an invisible format character (a zero-width
// space, a byte-order mark) or a line separator. It returns its 1-based position and
// its code point as U+XXXX, or 0 when the key is fine. Go's HTTP client refuses such a
// header before sending, which otherwise surfaces as "cannot reach".
func badKeyChar(key string) (int, string) {
	pos := 0
	for _, r := range key {
		pos++
		if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			return pos, fmt.Sprintf("U+%04X", r)
		}
	}
	return 0, ""
}

// CheckKey refuses an API key with a character badKeyChar finds; the key is given
// trimmed, as it is stored.
func CheckKey(key string) error {
	if pos, char := badKeyChar(key); pos > 0 {
		return apperr.New(apperr.ProviderKeyInvalid, "the API key has the control character %s at character %d", char, pos).
			WithParam("char", char).WithParam("position", pos)
	}
	return nil
}

// checkStoredKey reports a stored key that cannot be sent (saved before keys were
// checked) as the bad key it is, with the way to fix it.
func checkStoredKey(p Provider, key string) error {
	if pos, char := badKeyChar(key); pos > 0 {
		return apperr.New(apperr.ProviderKeyStoredBad, "the stored API key of provider %s has the control character %s at character %d", p.Name, char, pos).
			WithParam("name", p.Name).WithParam("providerId", p.ID).WithParam("char", char).WithParam("position", pos)
	}
	return nil
}

// checkPort refuses a base URL whose port is outside 1–65535: url.Parse takes any digits,
// and the dial error that follows reads like an unreachable host.
func checkPort(u *url.URL) error {
	port := u.Port()
	if port == "" {
		return nil
	}
	if n, err := strconv.Atoi(port); err == nil && n >= 1 && n <= 65535 {
		return nil
	}
	shown := port
	if len(port) > 12 {
		shown = apperr.Quote(port)
	}
	return apperr.New(apperr.ProviderPortInvalid, "the port %s of the base URL is not between 1 and 65535", shown).WithParam("port", shown)
}
