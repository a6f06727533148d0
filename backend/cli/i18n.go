package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// Language is the language of the terminal's locale (zh-CN when it is Chinese, else en):
// what the CLI's messages, and a desktop window without settings to read, are shown in.
func Language() string {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := os.Getenv(k); v != "" {
			if strings.HasPrefix(v, "zh") {
				return "zh-CN"
			}
			return "en"
		}
	}
	return "en"
}

// Localize renders an apperr in the terminal's language with the same texts the windows
// use, falling back to the technical message.
func (env *Env) Localize(e *apperr.Error) string {
	if env.Deps.Locales == nil {
		return e.Message
	}
	for _, l := range []string{Language(), "en"} {
		b, err := fs.ReadFile(env.Deps.Locales, l+"/errors.json")
		if err != nil {
			continue
		}
		var m map[string]string
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		key := strings.TrimPrefix(e.I18nKey, "errors.")
		tpl, ok := m[key]
		if !ok {
			continue
		}
		params := map[string]any{"message": e.Message}
		for k, v := range e.Params {
			params[k] = v
		}
		for k, v := range params {
			tpl = strings.ReplaceAll(tpl, "{{"+k+"}}", fmt.Sprint(v))
		}
		if e.Code == apperr.Unknown || strings.Contains(tpl, "{{") {
			return tpl + " (" + e.Message + ")"
		}
		return tpl
	}
	return e.Message
}
