//go:build desktop && !linux

package main

import (
	"context"

	"github.com/wailsapp/wails/v2/pkg/options"
)

// handOver is Linux's D-Bus hand-over done ahead of Wails (desktop_handover_linux.go);
// elsewhere Wails' own single-instance lock hands the launch over inside wails.Run.
func handOver(context.Context, *options.SingleInstanceLock, []string) bool { return false }
