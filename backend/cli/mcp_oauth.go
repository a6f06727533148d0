package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/cairn-app/cairn/backend/termtext"
)

// mcpLogin is `cairn mcp login SERVER`: it starts the OAuth sign-in, prints the
// authorization page (and opens the browser unless told not to), waits for the browser
// to come back, then connects and lists the server's tools. Ctrl-C cancels the sign-in.
func mcpLogin(ctx context.Context, env *Env, m signInBackend, id string, open bool) error {
	v, err := m.View(ctx, id)
	if err != nil {
		return err
	}
	st, err := m.SignIn(ctx, id, open)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "Sign in to %s in your browser:\n", termtext.Line(v.Name))
	fmt.Fprintln(env.Stdout, termtext.Line(st.AuthURL))
	if st.Opened {
		fmt.Fprintln(env.Stderr, "(opened in your browser)")
	} else if open {
		fmt.Fprintln(env.Stderr, "(no browser could be opened: open the page yourself)")
	}
	fmt.Fprintf(env.Stderr, "waiting for the sign-in until %s (Ctrl-C cancels)…\n", time.UnixMilli(st.ExpiresAt).Format(time.TimeOnly))
	if err := m.WaitSignIn(ctx, id); err != nil {
		if ctx.Err() != nil {
			_, _ = m.CancelSignIn(context.WithoutCancel(ctx), id)
		}
		return err
	}
	if !v.Enabled {
		fmt.Fprintf(env.Stdout, "signed in to %s (it is turned off: `cairn mcp enable` connects it)\n", termtext.Line(v.Name))
		return nil
	}
	list, err := m.RefreshTools(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "signed in to %s: %d tools\n", termtext.Line(v.Name), len(list))
	return nil
}
