package permission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// localesDir holds frontend/src/i18n/locales/<lang>/<namespace>.json; the approval
// dialog's strings (approval.reasons.<code>) live in the chat namespace.
const localesDir = "../../frontend/src/i18n/locales"

// TestReasonCodesHaveLocaleTexts keeps ReasonCodes and the windows' texts in step: every
// code has a non-empty approval.reasons text in every locale, and no locale has a
// reason text for a code that does not exist.
func TestReasonCodesHaveLocaleTexts(t *testing.T) {
	langs, err := os.ReadDir(localesDir)
	if err != nil {
		t.Fatalf("read locales: %v", err)
	}
	codes := ReasonCodes()
	seen := 0
	for _, l := range langs {
		if !l.IsDir() {
			continue
		}
		seen++
		t.Run(l.Name(), func(t *testing.T) {
			path := filepath.Join(localesDir, l.Name(), "chat.json")
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read %s: %v", path, err)
			}
			var doc struct {
				Approval struct {
					Reasons map[string]string `json:"reasons"`
				} `json:"approval"`
			}
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatalf("parse %s: %v", path, err)
			}
			for _, c := range codes {
				if doc.Approval.Reasons[c] == "" {
					t.Errorf("%s: approval.reasons.%s is missing or empty", path, c)
				}
			}
			for k := range doc.Approval.Reasons {
				if !slices.Contains(codes, k) {
					t.Errorf("%s: approval.reasons.%s is not a code of ReasonCodes()", path, k)
				}
			}
		})
	}
	if seen == 0 {
		t.Fatalf("no locales in %s", localesDir)
	}
}
