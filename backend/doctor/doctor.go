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
	"github.com/cairn-app/cairn/backend/sandbox/confine"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/service"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/cairn-app/cairn/backend/websearch"
)

// Check is one line of the report.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"` // English, for the terminal
	// Texts are the detail's parts for the windows, which show them in their language
	// (about.detail.<key>) joined by "; ".
	Texts []Text `json:"texts,omitempty"`
	// Required checks make the installation unusable when they fail; the others are notes.
	Required bool `json:"required"`
}

// Text is one part of a check's detail that a window shows in its own language.
type Text struct {
	Key    string            `json:"key"`
	Params map[string]string `json:"params,omitempty"`
}

// TextKeys lists every Text.Key a report can carry; each has a text in every locale.
func TextKeys() []string {
	return []string{"dataDirOk", "failed", "database", "keyringSystem", "keyringFile", "keyringFileNote",
		"settingsFailed", "settingsUnreadable", "settingsOk", "webSearchUnknown", "webSearchOk",
		"webviewNoDesktop", "webviewSystem", "webviewLib", "webviewNoLib", "webviewNoDisplay",
		"version", "pathFound", "pathMissing", "sandboxLevel", "sandboxWhy"}
}

// said builds a check whose detail is one text: english for the terminal, key and params
// for the windows.
func said(c Check, english, key string, params ...string) Check {
	c.Detail = english
	c.Texts = []Text{text(key, params...)}
	return c
}

// text pairs its params as name, value, name, value….
func text(key string, params ...string) Text {
	t := Text{Key: key}
	if len(params) > 0 {
		t.Params = map[string]string{}
		for i := 0; i+1 < len(params); i += 2 {
			t.Params[params[i]] = params[i+1]
		}
	}
	return t
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

	add(dataDirCheck(s.DataDir))
	v, err := s.DB.Version(ctx)
	r.DBVersion = v
	latest := fmt.Sprint(store.LatestVersion())
	add(said(Check{Name: "database", OK: err == nil && v == store.LatestVersion(), Required: true},
		fmt.Sprintf("%s (schema %d of %s)", s.DB.Path, v, latest), "database", "path", s.DB.Path, "version", fmt.Sprint(v), "latest", latest))
	r.Keyring, _ = s.Secrets.Backend()
	add(keyringCheck(s))
	add(settingsCheck(ctx, s))
	add(webSearchCheck(ctx, s))
	add(webviewCheck(desktop))
	add(sandboxCheck(ctx, s.DataDir))
	b := r.Version
	add(said(Check{Name: "version", OK: true}, fmt.Sprintf("cairn %s %s, %s, %s", b.Version, b.Commit, b.GoVersion, b.Platform),
		"version", "version", b.Version, "commit", b.Commit, "go", b.GoVersion, "platform", b.Platform))
	for _, tool := range []string{"node", "npx", "uvx"} {
		add(pathCheck(tool))
	}

	r.OK = true
	for _, c := range r.Checks {
		if c.Required && !c.OK {
			r.OK = false
		}
	}
	return r
}

func dataDirCheck(dir string) Check {
	probe := filepath.Join(dir, ".doctor-probe")
	err := os.WriteFile(probe, []byte("ok"), 0o600)
	os.Remove(probe)
	c := Check{Name: "data_dir", OK: err == nil, Required: true}
	if err != nil {
		return said(c, err.Error(), "failed", "error", err.Error())
	}
	return said(c, dir, "dataDirOk", "path", dir)
}

func keyringCheck(s *service.Services) Check {
	kind, note := s.Secrets.Backend()
	c := Check{Name: "keyring", OK: kind == secrets.BackendKeyring}
	if kind != secrets.BackendFile {
		return said(c, "system keyring", "keyringSystem")
	}
	path := filepath.Join(s.DataDir, secrets.FileName)
	c = said(c, "keys stored in a local file, not the system keyring ("+path+")", "keyringFile", "path", path)
	if note != "" {
		c.Detail += ": " + note
		c.Texts = append(c.Texts, text("keyringFileNote", "note", note))
	}
	return c
}

func pathCheck(tool string) Check {
	c := Check{Name: "path:" + tool}
	p, err := exec.LookPath(tool)
	if err != nil {
		return said(c, err.Error(), "pathMissing", "tool", tool)
	}
	c.OK = true
	return said(c, p, "pathFound", "path", p)
}

func webviewCheck(desktop bool) Check {
	c := Check{Name: "webview"}
	var parts []string
	part := func(english, key string, params ...string) {
		parts = append(parts, english)
		c.Texts = append(c.Texts, text(key, params...))
	}
	if runtime.GOOS != "linux" {
		c.OK = desktop
		if desktop {
			part("system webview", "webviewSystem")
		} else {
			part(noDesktop, "webviewNoDesktop")
		}
		c.Detail = strings.Join(parts, "; ")
		return c
	}
	lib := webkitLib()
	display := os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
	if lib == "" {
		part("libwebkit2gtk-4.1 not found (apt install libwebkit2gtk-4.1-0)", "webviewNoLib")
	} else {
		part(lib, "webviewLib", "path", lib)
	}
	if !display {
		part("no display ($DISPLAY/$WAYLAND_DISPLAY unset): use `cairn serve`", "webviewNoDisplay")
	}
	if !desktop {
		part(noDesktop, "webviewNoDesktop")
	}
	c.OK = lib != "" && display && desktop
	c.Detail = strings.Join(parts, "; ")
	return c
}

const noDesktop = "this binary has no desktop window (built without the Wails tags); `cairn serve` works"

func webkitLib() string {
	for _, dir := range []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"} {
		if m, _ := filepath.Glob(filepath.Join(dir, "libwebkit2gtk-4.1.so*")); len(m) > 0 {
			return m[0]
		}
	}
	return ""
}

// settingsCheck names stored settings that cannot be read: their defaults apply (the rows
// are kept as they are), which otherwise looks like a choice that was forgotten.
func settingsCheck(ctx context.Context, s *service.Services) Check {
	c := Check{Name: "settings"}
	bad, err := s.Settings.Unreadable(ctx)
	switch {
	case err != nil:
		return said(c, err.Error(), "settingsFailed", "error", err.Error())
	case len(bad) > 0:
		names := strings.Join(bad, ", ")
		return said(c, "stored values that cannot be read, so their defaults apply: "+names+
			" (set them again in Settings or with `cairn settings set`)", "settingsUnreadable", "names", names)
	}
	c.OK = true
	return said(c, "all stored values readable", "settingsOk")
}

// webSearchCheck names fallback providers Cairn does not have (a value stored before the
// setting was checked, or written by hand): searches skip them, which otherwise looks like
// a fallback that never happens.
func webSearchCheck(ctx context.Context, s *service.Services) Check {
	c := Check{Name: "web_search"}
	unknown := websearch.UnknownFallback(s.Settings.String(ctx, websearch.SettingFallback))
	if len(unknown) > 0 {
		names, known := strings.Join(unknown, ", "), strings.Join(websearch.IDs(), ", ")
		return said(c, websearch.SettingFallback+" names providers Cairn does not have, so searches skip them: "+
			names+" (known: "+known+"; fix it in Settings → Web search)",
			"webSearchUnknown", "setting", websearch.SettingFallback, "names", names, "known", known)
	}
	c.OK = true
	return said(c, "fallback providers all known", "webSearchOk")
}

// sandboxCheck says how strongly task-mode tools are confined here (a note: chat works
// without a sandbox).
func sandboxCheck(ctx context.Context, dataDir string) Check {
	sb, err := confine.New(dataDir, confine.Options{})
	if err != nil {
		return said(Check{Name: "sandbox"}, err.Error(), "failed", "error", err.Error())
	}
	st := sb.Status(ctx)
	c := Check{Name: "sandbox", OK: st.Level == confine.Strong}
	if len(st.Reasons) > 0 && st.Level != confine.Strong {
		why := strings.Join(st.Reasons, "; ")
		return said(c, "level "+string(st.Level)+": "+why, "sandboxWhy", "level", string(st.Level), "why", why)
	}
	return said(c, "level "+string(st.Level), "sandboxLevel", "level", string(st.Level))
}
