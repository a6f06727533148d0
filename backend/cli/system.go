package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/cairn-app/cairn/backend/buildinfo"
	"github.com/cairn-app/cairn/backend/doctor"
	"github.com/cairn-app/cairn/backend/termtext"
)

func runVersion(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "version")
	asJSON := f.Bool("json", false, "print JSON")
	if err := parseFlags(f, args); err != nil {
		return err
	}
	in := buildinfo.Get()
	if *asJSON {
		return writeJSON(env.Stdout, in)
	}
	fmt.Fprintf(env.Stdout, "cairn %s (commit %s, %s, %s)\n", in.Version, orDash(in.Commit), in.GoVersion, in.Platform)
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func runDoctor(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "doctor")
	asJSON := f.Bool("json", false, "print JSON")
	if err := parseFlags(f, args); err != nil {
		return err
	}
	s, err := env.Open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	r := doctor.Run(ctx, s, env.Deps.Desktop)
	if *asJSON {
		if err := writeJSON(env.Stdout, r); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		for _, c := range r.Checks {
			mark := "ok"
			if !c.OK {
				mark = "--"
				if c.Required {
					mark = "FAIL"
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", mark, termtext.Line(c.Name), termtext.Line(c.Detail))
		}
		tw.Flush()
		if r.OK {
			fmt.Fprintln(env.Stdout, "\nCairn is usable.")
		} else {
			fmt.Fprintln(env.Stdout, "\nCairn is NOT usable: fix the FAIL lines above.")
		}
	}
	if !r.OK {
		return exitError{code: 1}
	}
	return nil
}
