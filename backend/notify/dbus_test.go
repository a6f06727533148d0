package notify

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// fakeServer is a notification service on a private session bus: what a desktop's
// notification daemon does, minus the drawing.
type fakeServer struct{ got chan [2]string }

func (f *fakeServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	f.got <- [2]string{summary, body}
	return 1, nil
}

// TestDBusNotifyReachesTheNotificationService sends a real notification over a real
// (private) D-Bus session bus to a service that owns org.freedesktop.Notifications.
func TestDBusNotifyReachesTheNotificationService(t *testing.T) {
	daemon := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1")
	out, err := daemon.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := daemon.Start(); err != nil {
		t.Fatalf("dbus-daemon (package dbus): %v", err)
	}
	defer func() { _ = daemon.Process.Kill(); _ = daemon.Wait() }()
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", strings.TrimSpace(addr))

	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	srv := &fakeServer{got: make(chan [2]string, 1)}
	if err := conn.Export(srv, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own the name: %v %v", reply, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := (DBus{AppName: "Cairn"}).Notify(ctx, "Cairn: approval needed", "sandbox_bash is waiting for your approval."); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-srv.got:
		if got[0] != "Cairn: approval needed" || got[1] != "sandbox_bash is waiting for your approval." {
			t.Fatalf("notification = %q", got)
		}
	case <-ctx.Done():
		t.Fatal("the notification service received nothing")
	}

	// Without a notification service the error says so (the watcher logs it).
	conn.ReleaseName("org.freedesktop.Notifications")
	if err := (DBus{AppName: "Cairn"}).Notify(ctx, "t", "b"); err == nil || !strings.Contains(err.Error(), "notification service") {
		t.Fatalf("no service: %v", err)
	}
}
