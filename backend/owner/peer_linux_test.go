//go:build linux

package owner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAnotherUserIsRefused: a process of another user that reaches the socket (here the
// file mode is opened up on purpose) is disconnected without an answer. Needs root, to
// run the other user's process.
func TestAnotherUserIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	py := "/usr/bin/python3" // not a per-user shim another user cannot run
	if _, err := os.Stat(py); err != nil {
		t.Skip("needs /usr/bin/python3 for the other user's client")
	}
	base := t.TempDir()
	dir := filepath.Join(base, "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Dir(base), base, dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	o := claim(t, dir, 0)
	if err := o.Serve(Control{API: apiStub(nil)}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(SocketPath(dir), 0o666); err != nil {
		t.Fatal(err)
	}
	const client = `import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
try:
    s.sendall(b"GET /control/status HTTP/1.0\r\n\r\n")
    data = s.recv(4096)
except OSError:
    data = b""
print("answer:" + repr(data))`
	run := func(uid uint32) string {
		cmd := exec.Command(py, "-c", client, SocketPath(dir))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		out, err := cmd.CombinedOutput()
		if err != nil && !strings.Contains(string(out), "answer:") {
			t.Fatalf("client as uid %d: %v\n%s", uid, err, out)
		}
		return string(out)
	}
	if out := run(0); !strings.Contains(out, "200 OK") {
		t.Fatalf("this user's client got %s", out)
	}
	if out := run(65534); !strings.Contains(out, "answer:b''") {
		t.Fatalf("another user's client got an answer: %s", out)
	}
}
