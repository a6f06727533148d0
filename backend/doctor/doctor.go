// Package doctor checks whether this installation is usable and says what is missing.
package doctor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cairn-app/cairn/backend/buildinfo"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/service"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/cairn-app/cairn/backend/websearch"
)

// Check is one line of the report.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Required checks make the installation unusable when they fail; the others are notes.
	Required bool `json:"required"`
}

// Report is what `cairn doctor` and Settings → About show.
type Report struct {
	OK        bool           `json:"ok"`
	Checks    []Check        `json:"checks"`
	Version   buildinfo.Info `json:"version"`
	DataDir   string         `json:"dataDir"`
	DBVersion int            `json:"dbVersion"`
	Keyring   string         `json:"keyring"`
}

// Run inspects the services; desktop says whether this binary has the window built in.
func Run(ctx context.Context, s *service.Services, desktop bool) Report {
	r := Report{Version: buildinfo.Get(), DataDir: s.DataDir}
	add := func(c Check) { r.Checks = append(r.Checks, c) }

	probe := filepath.Join(s.DataDir, ".doctor-probe")
	err := os.WriteFile(probe, []byte("ok"), 0o600)
	os.Remove(probe)
	add(Check{Name: "data_dir", OK: err == nil, Required: true, Detail: detail(s.DataDir, err)})

	v, err := s.DB.Version(ctx)
	r.DBVersion = v
	add(Check{Name: "database", OK: err == nil && v == store.LatestVersion(), Required: true,
		Detail: fmt.Sprintf("%s (schema %d of %d)", s.DB.Path, v, store.LatestVersion())})

	kind, note := s.Secrets.Backend()
	r.Keyring = kind
	kd := "system keyring"
	if kind == secrets.BackendFile {
		kd = "keys stored in a local file, not the system keyring (" + filepath.Join(s.DataDir, secrets.FileName) + ")"
		if note != "" {
			kd += ": " + note
		}
	}
	add(Check{Name: "keyring", OK: kind == secrets.BackendKeyring, Detail: kd})

	add(settingsCheck(ctx, s))
	add(webSearchCheck(ctx, s))
	add(webviewCheck(desktop))
	add(Check{Name: "version", OK: true, Detail: fmt.Sprintf("cairn %s %s, %s, %s", r.Version.Version, r.Version.Commit, r.Version.GoVersion, r.Version.Platform)})
	for _, tool := range []string{"node", "npx", "uvx"} {
		p, err := exec.LookPath(tool)
		add(Check{Name: "path:" + tool, OK: err == nil, Detail: detail(p, err)})
	}

	r.OK = true
	for _, c := range r.Checks {
		if c.Required && !c.OK {
			r.OK = false
		}
	}
	return r
}

func detail(ok string, err error) string {
	if err != nil {
		return err.Error()
	}
	return ok
}

func webviewCheck(desktop bool) Check {
	c := Check{Name: "webview"}
	if !desktop {
		c.Detail = "this binary has no desktop window (built without the Wails tags); `cairn serve` works"
	}
	if runtime.GOOS != "linux" {
		c.OK = desktop
		if desktop {
			c.Detail = "system webview"
		}
		return c
	}
	lib := ""
	for _, dir := range []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"} {
		if m, _ := filepath.Glob(filepath.Join(dir, "libwebkit2gtk-4.1.so*")); len(m) > 0 {
			lib = m[0]
			break
		}
	}
	display := os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
	var parts []string
	if lib == "" {
		parts = append(parts, "libwebkit2gtk-4.1 not found (apt install libwebkit2gtk-4.1-0)")
	} else {
		parts = append(parts, lib)
	}
	if !display {
		parts = append(parts, "no display ($DISPLAY/$WAYLAND_DISPLAY unset): use `cairn serve`")
	}
	if c.Detail != "" {
		parts = append(parts, c.Detail)
	}
	c.OK = lib != "" && display && desktop
	c.Detail = strings.Join(parts, "; ")
	return c
}

// settingsCheck names stored settings that cannot be read: their defaults apply (the rows
// are kept as they are), which otherwise looks like a choice that was forgotten.
func settingsCheck(ctx context.Context, s *service.Services) Check {
	bad, err := s.Settings.Unreadable(ctx)
	switch {
	case err != nil:
		return Check{Name: "settings", Detail: err.Error()}
	case len(bad) > 0:
		return Check{Name: "settings", Detail: "stored values that cannot be read, so their defaults apply: " + strings.Join(bad, ", ") +
			" (set them again in Settings or with `cairn settings set`)"}
	}
	return Check{Name: "settings", OK: true, Detail: "all stored values readable"}
}

// webSearchCheck names fallback providers Cairn does not have (a value stored before the
// setting was checked, or written by hand): searches skip them, which otherwise looks like
// a fallback that never happens.
func webSearchCheck(ctx context.Context, s *service.Services) Check {
	unknown := websearch.UnknownFallback(s.Settings.String(ctx, websearch.SettingFallback))
	if len(unknown) > 0 {
		return Check{Name: "web_search", Detail: websearch.SettingFallback + " names providers Cairn does not have, so searches skip them: " +
			strings.Join(unknown, ", ") + " (known: " + strings.Join(websearch.IDs(), ", ") + "; fix it in Settings → Web search)"}
	}
	return Check{Name: "web_search", OK: true, Detail: "fallback providers all known"}
}
