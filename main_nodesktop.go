//go:build !desktop

package main

import (
	"context"
	"fmt"

	"github.com/cairn-app/cairn/backend/cli"
)

const desktopBuild = false

// runDesktop explains how to get the window instead of Wails' raw build-tag error.
func runDesktop(_ context.Context, env *cli.Env) int {
	fmt.Fprint(env.Stderr, `This cairn binary was built without the desktop window.

  Desktop app:  make desktop   (go tool wails build -tags webkit2_41; needs
                libgtk-3-dev libwebkit2gtk-4.1-dev pkg-config on Debian/Ubuntu)
  Or run it now in a browser:  cairn serve
  Everything else:             cairn help
`)
	return 2
}
