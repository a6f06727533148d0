package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/cairn-app/cairn/backend/buildinfo"
	"github.com/cairn-app/cairn/backend/doctor"
	"github.com/cairn-app/cairn/backend/owner"
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
	r, err := doctorReport(ctx, env)
	if err != nil {
		return err
	}
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

// doctorReport is the owner's report when a backend owns the data directory (with a line
// saying so), else this process's own.
func doctorReport(ctx context.Context, env *Env) (doctor.Report, error) {
	cn, err := env.connect(ctx)
	if err != nil {
		return doctor.Report{}, err
	}
	defer cn.Close()
	if cn.local != nil {
		r := doctor.Run(ctx, cn.local, env.Deps.Desktop)
		r.Checks = append(r.Checks, ownerCheck(nil))
		return r, nil
	}
	in, err := cn.remote.Status(ctx)
	if err != nil {
		return doctor.Report{}, err
	}
	var r doctor.Report
	if err := cn.remote.Call(ctx, "Doctor", &r); err != nil {
		return doctor.Report{}, err
	}
	r.Checks = append(r.Checks, ownerCheck(&in))
	return r, nil
}

// ownerCheck is the report's line on who owns the data directory.
func ownerCheck(in *owner.Info) doctor.Check {
	c := doctor.Check{Name: "backend", OK: true, Detail: "no running backend owns the data directory (this command opened it)"}
	if in != nil {
		c.Detail = fmt.Sprintf("%s owns the data directory since %s; %s, %s", in.Describe(),
			in.Since.Local().Format("2006-01-02 15:04:05"), plural(in.Windows, "window"), plural(in.Clients, "terminal client"))
	}
	return c
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
