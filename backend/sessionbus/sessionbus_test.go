package sessionbus

import (
	"errors"
	"net"
	"path/filepath"
	"testing"

	"github.com/godbus/dbus/v5"
)

func TestAddress(t *testing.T) {
	dir := t.TempDir()
	l, err := net.Listen("unix", filepath.Join(dir, "bus"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	plain := t.TempDir() // has a "bus" that is not a socket: ignored
	cases := []struct {
		name, env, runtime string
		want               string
		wantErr            error
	}{
		{"from the environment", "unix:path=/tmp/x", "", "unix:path=/tmp/x", nil},
		{"autolaunch is not an address", "autolaunch:", "/nonexistent", "", ErrNone},
		{"per-user socket", "", dir, "unix:path=" + dbus.EscapeBusAddressValue(filepath.Join(dir, "bus")), nil},
		{"nothing", "", plain, "", ErrNone},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := find(tc.env, []string{"", tc.runtime})
			if !errors.Is(err, tc.wantErr) || got != tc.want {
				t.Fatalf("find = %q, %v; want %q, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
