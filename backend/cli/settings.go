package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"text/tabwriter"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/termtext"
)

// openList parses a "list | get | set"-style command line (default "list", --json) and
// connects to the data directory (its owner, or its own services).
func openList(ctx context.Context, env *Env, name string, args []string) (pos []string, asJSON bool, s *conn, err error) {
	f := newFlags(env, name)
	js := f.Bool("json", false, "print JSON")
	if pos, err = parseInterspersed(f, args); err != nil {
		return nil, false, nil, err
	}
	if len(pos) == 0 {
		pos = []string{"list"}
	}
	if s, err = env.connect(ctx); err != nil {
		return nil, false, nil, err
	}
	return pos, *js, s, nil
}

func runSettings(ctx context.Context, env *Env, args []string) error {
	pos, asJSON, cn, err := openList(ctx, env, "settings", args)
	if err != nil {
		return err
	}
	defer cn.Close()
	st := cn.settings()
	switch pos[0] {
	case "list":
		snap, err := st.Snapshot(ctx)
		if err != nil {
			return err
		}
		if asJSON {
			return writeJSON(env.Stdout, snap.Values)
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		for _, sp := range snap.Specs {
			b, _ := json.Marshal(snap.Values[sp.Key])
			fmt.Fprintf(tw, "%s\t%s\t(%s)\n", sp.Key, termtext.JSON(b), sp.Type)
		}
		return tw.Flush()
	case "get":
		if len(pos) != 2 {
			return usageErr("usage: cairn settings get KEY")
		}
		v, err := st.Get(ctx, pos[1])
		if err != nil {
			return err
		}
		if asJSON {
			return writeJSON(env.Stdout, v)
		}
		fmt.Fprintln(env.Stdout, termtext.Line(fmt.Sprint(v)))
		return nil
	case "set":
		if len(pos) != 3 {
			return usageErr("usage: cairn settings set KEY VALUE")
		}
		if _, err := st.Set(ctx, pos[1], pos[2]); err != nil {
			return err
		}
		v, _ := st.Get(ctx, pos[1])
		fmt.Fprintf(env.Stdout, "%s = %s\n", pos[1], termtext.Line(fmt.Sprint(v)))
		return nil
	}
	return usageErr("unknown settings subcommand %s (list, get, set)", apperr.Quote(pos[0]))
}

func runSecrets(ctx context.Context, env *Env, args []string) error {
	pos, asJSON, cn, err := openList(ctx, env, "secrets", args)
	if err != nil {
		return err
	}
	defer cn.Close()
	sec := cn.secrets()
	switch pos[0] {
	case "list":
		snap, err := sec.Snapshot(ctx)
		if err != nil {
			return err
		}
		// The keys this command manages; providers' keys are in `cairn provider list`.
		snap.Secrets = slices.DeleteFunc(snap.Secrets, func(st secrets.Status) bool { return !st.Known })
		if asJSON {
			return writeJSON(env.Stdout, snap)
		}
		if snap.Backend == secrets.BackendFile {
			fmt.Fprintf(env.Stdout, "note: keys stored in a local file, not the system keyring (%s)\n", snap.Note)
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		for _, st := range snap.Secrets {
			state := "not set"
			if st.Set {
				state = "set"
				if st.Last4 != "" {
					state += " (…" + st.Last4 + ")"
				}
			}
			fmt.Fprintf(tw, "%s\t%s\n", st.Name, state)
		}
		return tw.Flush()
	case "set":
		if len(pos) != 2 {
			return usageErr("usage: cairn secrets set NAME   (the value is read from stdin, never from arguments)")
		}
		if err := sec.CheckKnown(ctx, pos[1]); err != nil { // before asking for a value
			return err
		}
		v, err := readSecret(ctx, env, fmt.Sprintf("Value for %s (typing is hidden): ", pos[1]))
		if err != nil {
			return err
		}
		if err := sec.SetKnown(ctx, pos[1], v); err != nil {
			return err
		}
		kind := sec.Backend(ctx)
		fmt.Fprintf(env.Stdout, "%s saved (%s)\n", pos[1], kind)
		return nil
	case "delete":
		if len(pos) != 2 {
			return usageErr("usage: cairn secrets delete NAME")
		}
		if err := sec.DeleteKnown(ctx, pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s deleted\n", pos[1])
		return nil
	}
	return usageErr("unknown secrets subcommand %s (list, set, delete)", apperr.Quote(pos[0]))
}
