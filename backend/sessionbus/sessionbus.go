// Package sessionbus finds the user's D-Bus session bus without starting one. godbus (and
// go-keyring through it) runs dbus-launch when it finds none, which on a headless machine
// leaves a dbus-daemon and a gnome-keyring-daemon behind every time cairn starts, and
// then waits for a keyring that nobody can unlock.
package sessionbus

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNone says that no session bus is running for this user.
var ErrNone = errors.New("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set and there is no per-user bus socket)")

// Address returns the session bus address: $DBUS_SESSION_BUS_ADDRESS, or the per-user
// socket a systemd login session provides ($XDG_RUNTIME_DIR/bus, /run/user/UID/bus).
func Address() (string, error) {
	dirs := []string{os.Getenv("XDG_RUNTIME_DIR")}
	if uid := os.Getuid(); uid >= 0 {
		dirs = append(dirs, filepath.Join("/run/user", strconv.Itoa(uid)))
	}
	return find(os.Getenv("DBUS_SESSION_BUS_ADDRESS"), dirs)
}

func find(env string, runtimeDirs []string) (string, error) {
	if env != "" && env != "autolaunch:" {
		return env, nil
	}
	for _, d := range runtimeDirs {
		if d == "" {
			continue
		}
		sock := filepath.Join(d, "bus")
		if st, err := os.Stat(sock); err == nil && st.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + escape(sock), nil
		}
	}
	return "", ErrNone
}

// escape applies D-Bus address value escaping: bytes outside [-0-9A-Za-z_/.\*] become %XX.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '-' || c == '_' || c == '/' || c == '.' || c == '\\' || c == '*' ||
			(c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
	}
	return b.String()
}
