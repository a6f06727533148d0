//go:generate go run ./backend/cmd/tsgen -o frontend/src/api/generated.ts
//go:generate go run ./backend/cmd/fixtures -o frontend/src/test/backend.generated.ts

package main

import (
	"context"

	"github.com/cairn-app/cairn/backend/server"
	"github.com/cairn-app/cairn/backend/service"
)

// App is the bound facade: one exported method per user intent, no logic. The Wails window
// binds it and `cairn serve` dispatches POST /api/<Method> to the same methods, so this
// method set is the one list of what a window can ask. Methods are split by domain into
// app_<domain>.go.
type App struct {
	ctx     context.Context
	s       *service.Services
	desktop bool
	// chooseSavePath asks the user where to save a file (the desktop window's native
	// dialog; "" when cancelled). Nil in `cairn serve`, where the browser saves downloads.
	chooseSavePath func(defaultName string) (string, error)
	// chooseFolder asks the user for a folder (the desktop window's native dialog; ""
	// when cancelled). Nil in `cairn serve`, where the window types the path.
	chooseFolder func(title string) (string, error)
	// openFile opens a file with the desktop's default application (sysopen.Open). Nil
	// in `cairn serve`: the browser may be on another machine than the file.
	openFile func(path string) error
	// onReady runs on every Ready call (the desktop window tidies up after its start).
	onReady func()
}

// perCall is the facade as `cairn serve` binds it: every request runs on a copy whose
// context is the request's, so a closed tab ends the wait its request started. The
// services never keep a call's context for work that goes on after the call returns.
func (a *App) perCall() server.PerCall {
	return server.PerCall{Bound: a, For: func(ctx context.Context) any {
		c := *a
		c.ctx = ctx
		return &c
	}}
}

// NewApp returns the facade over the services.
func NewApp(ctx context.Context, s *service.Services, desktop bool) *App {
	return &App{ctx: ctx, s: s, desktop: desktop}
}
