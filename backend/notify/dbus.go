package notify

import (
	"context"
	"fmt"

	"github.com/cairn-app/cairn/backend/sessionbus"
	"github.com/godbus/dbus/v5"
)

// DBus sends notifications through the freedesktop notification service on the session
// bus (GNOME, KDE, XFCE, …).
type DBus struct{ AppName string }

// Notify calls org.freedesktop.Notifications.Notify.
func (d DBus) Notify(ctx context.Context, title, body string) error {
	addr, err := sessionbus.Address() // never dbus-launch a bus of our own
	if err != nil {
		return fmt.Errorf("notifications: %w", err)
	}
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("no session bus for notifications: %w", err)
	}
	defer conn.Close()
	obj := conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications")
	call := obj.CallWithContext(ctx, "org.freedesktop.Notifications.Notify", 0,
		d.AppName, uint32(0), "dialog-question", title, body, []string{}, map[string]dbus.Variant{
			"urgency": dbus.MakeVariant(byte(2)),
		}, int32(-1))
	if call.Err != nil {
		return fmt.Errorf("notification service: %w", call.Err)
	}
	return nil
}
