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

	"github.com/godbus/dbus/v5"
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
			return "unix:path=" + dbus.EscapeBusAddressValue(sock), nil
		}
	}
	return "", ErrNone
}
