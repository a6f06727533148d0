//go:build desktop && linux

package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/sessionbus"
	"github.com/godbus/dbus/v5"
	"github.com/wailsapp/wails/v2/pkg/options"
)

// handOverTimeout bounds the D-Bus call: a window that holds the name but hangs must not
// keep this launch from opening its own.
const handOverTimeout = 5 * time.Second

// handOver gives this launch's arguments to the window that holds Wails' single-instance
// lock (a D-Bus name) and reports whether one took them. It speaks Wails' own protocol
// (its name, path and SecondInstanceData), so the window's OnSecondInstanceLaunch runs as
// if Wails had sent it; doing it here first lets this launch say what happened and exit
// 0, where Wails' hand-over inside wails.Run ends the process with status 1, silently.
func handOver(ctx context.Context, lock *options.SingleInstanceLock, args []string) bool {
	if lock == nil {
		return false
	}
	addr, err := sessionbus.Address()
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, handOverTimeout)
	defer cancel()
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return false
	}
	defer conn.Close()
	wd, err := os.Getwd()
	if err != nil {
		return false
	}
	data, err := json.Marshal(options.SecondInstanceData{Args: args, WorkingDirectory: wd})
	if err != nil {
		return false
	}
	id := "wails_app_" + strings.ReplaceAll(strings.ReplaceAll(lock.UniqueId, "-", "_"), ".", "_")
	name, path := "org."+id+".SingleInstance", dbus.ObjectPath("/org/"+id+"/SingleInstance")
	// No auto-start: only a running window may take the launch.
	call := conn.Object(name, path).CallWithContext(ctx, name+".SendMessage", dbus.FlagNoAutoStart, string(data))
	return call.Err == nil
}
