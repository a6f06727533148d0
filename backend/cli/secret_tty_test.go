//go:build linux

package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: the master (the "user" types into it) and the slave
// (the command's stdin, a real terminal).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty slave: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// echoing reports whether the terminal echoes what is typed. It takes the raw fd: File.Fd
// would put the file back into blocking mode, hiding what the code under test left.
func echoing(t *testing.T, fd int) bool {
	t.Helper()
	tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return tio.Lflag&unix.ECHO != 0
}

// waitEcho waits until the terminal's echo is as wanted (readSecret switches it).
func waitEcho(t *testing.T, fd int, want bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for echoing(t, fd) != want {
		if time.Now().After(deadline) {
			t.Fatalf("terminal echo never became %v", want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// readUntil reads what the terminal shows (the master side) until it contains marker.
func readUntil(t *testing.T, master *os.File, marker string) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		var b []byte
		buf := make([]byte, 1024)
		for !bytes.Contains(b, []byte(marker)) {
			n, err := master.Read(buf)
			b = append(b, buf[:n]...)
			if err != nil {
				break
			}
		}
		got <- string(b)
	}()
	select {
	case s := <-got:
		return s
	case <-time.After(5 * time.Second):
		t.Fatalf("the terminal never showed %q", marker)
		return ""
	}
}

// TestReadSecretFromTerminalIsHidden: on a terminal the value is asked for on stderr and
// typed with the echo off, so it never shows; the echo comes back afterwards.
func TestReadSecretFromTerminalIsHidden(t *testing.T) {
	master, slave := openPTY(t)
	sfd := int(slave.Fd())
	if !echoing(t, sfd) {
		t.Fatal("a new terminal should echo")
	}
	var errb bytes.Buffer
	env := &Env{Stdin: slave, Stdout: &bytes.Buffer{}, Stderr: &errb}
	type result struct {
		v   string
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := readSecret(context.Background(), env, "Value for websearch.tavily (typing is hidden): ")
		done <- result{v, err}
	}()
	waitEcho(t, sfd, false)
	const secret = "tvly-hidden-0123456789"
	if _, err := master.WriteString(secret + "\n"); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("readSecret did not return")
	}
	if r.err != nil || r.v != secret {
		t.Fatalf("readSecret = %q, %v", r.v, r.err)
	}
	if !strings.Contains(errb.String(), "Value for websearch.tavily (typing is hidden): ") {
		t.Fatalf("no prompt on stderr: %q", errb.String())
	}
	if fl, err := unix.FcntlInt(uintptr(sfd), unix.F_GETFL, 0); err != nil || fl&unix.O_NONBLOCK != 0 {
		t.Fatalf("the terminal was left non-blocking (flags %#x, %v)", fl, err)
	}
	// What the terminal showed: with the echo back on, a marker typed now is echoed after
	// anything the secret's line showed, so everything up to it is what the user saw.
	if !echoing(t, sfd) {
		t.Fatal("echo not back on after reading")
	}
	if _, err := master.WriteString("MARK\n"); err != nil {
		t.Fatal(err)
	}
	if shown := readUntil(t, master, "MARK"); strings.Contains(shown, secret) {
		t.Fatalf("the terminal echoed the secret: %q", shown)
	}
}

// TestReadSecretInterrupted: Ctrl-C (the command's context ends) stops the wait and gives
// the terminal its echo back.
func TestReadSecretInterrupted(t *testing.T) {
	_, slave := openPTY(t)
	sfd := int(slave.Fd())
	ctx, cancel := context.WithCancel(context.Background())
	env := &Env{Stdin: slave, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	done := make(chan error, 1)
	go func() {
		_, err := readSecret(ctx, env, "API key (typing is hidden): ")
		done <- err
	}()
	waitEcho(t, sfd, false)
	cancel()
	select {
	case err := <-done:
		var ee exitError
		if !errors.As(err, &ee) || ee.code != 130 {
			t.Fatalf("err = %v, want a quiet exit 130", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("readSecret kept waiting after the interrupt")
	}
	if !echoing(t, sfd) {
		t.Fatal("the terminal was left without echo")
	}
}

// TestReadSecretAlreadyInterrupted: Ctrl-C before the prompt (while the command was still
// opening its data) never reaches the terminal's settings.
func TestReadSecretAlreadyInterrupted(t *testing.T) {
	_, slave := openPTY(t)
	sfd := int(slave.Fd())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := readSecret(ctx, &Env{Stdin: slave, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}, "API key: ")
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 130 {
		t.Fatalf("err = %v, want a quiet exit 130", err)
	}
	if !echoing(t, sfd) {
		t.Fatal("the terminal was left without echo")
	}
}
