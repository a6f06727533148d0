package sessionbus

import (
	"errors"
	"net"
	"path/filepath"
	"testing"
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
		{"per-user socket", "", dir, "unix:path=" + escape(filepath.Join(dir, "bus")), nil},
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

func TestEscape(t *testing.T) {
	if got := escape("/run/user/1000/my bus,x"); got != "/run/user/1000/my%20bus%2Cx" {
		t.Fatalf("escape = %q", got)
	}
}
