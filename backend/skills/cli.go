package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/termtext"
)

const usage = `usage:
  cairn skills list [--json]
  cairn skills show NAME [--json]
  cairn skills import PATH        (a skill folder or a .zip, copied into the data directory)
  cairn skills enable NAME
  cairn skills disable NAME`

func command() capability.Command {
	return capability.Command{Name: "skills", Summary: "agent skills: list, show, import, enable, disable",
		Run: func(ctx context.Context, term capability.Terminal, args []string) error {
			if len(args) == 0 {
				return apperr.New(apperr.InvalidArgument, "%s", usage)
			}
			return capability.OnService(ctx, term, OpenEnv, func(svc *Service) error {
				return RunCommand(ctx, svc, term.Dir, args, term.Stdout)
			})
		}}
}

// RunCommand runs `cairn skills ARGS` on svc; a relative path starts in dir.
func RunCommand(ctx context.Context, svc *Service, dir string, args []string, out io.Writer) error {
	asJSON := slices.Contains(args, "--json")
	args = slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "--json" })
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			return apperr.New(apperr.InvalidArgument, "unknown flag %s\n%s", apperr.Quote(a), usage)
		}
	}
	sub, rest := args[0], args[1:]
	need := map[string]int{"list": 0, "show": 1, "import": 1, "enable": 1, "disable": 1}
	n, ok := need[sub]
	if !ok || len(rest) != n {
		return apperr.New(apperr.InvalidArgument, "%s", usage)
	}
	switch sub {
	case "list":
		list, err := svc.List(ctx)
		return show(out, asJSON, list, err, func() string { return formatList(list) })
	case "show":
		sk, err := svc.Get(ctx, rest[0])
		return show(out, asJSON, sk, err, func() string { return formatSkill(sk) })
	case "import":
		p := rest[0]
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		sk, err := svc.ImportFolder(ctx, p)
		return show(out, asJSON, sk, err, func() string { return "imported " + sk.Name + " into " + sk.Dir + "\n" })
	default:
		sk, err := svc.SetEnabled(ctx, rest[0], sub == "enable")
		return show(out, asJSON, sk, err, func() string { return sub + "d " + sk.Name + "\n" })
	}
}

func show(out io.Writer, asJSON bool, v any, err error, text func() string) error {
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err = io.WriteString(out, termtext.Text(text()))
	return err
}

func formatList(list []Skill) string {
	if len(list) == 0 {
		return "no skills (put skill folders in the data directory's skills/, or import one)\n"
	}
	var b strings.Builder
	for _, sk := range list {
		state := "on"
		switch {
		case sk.Error != "":
			state = "broken"
		case sk.ShadowedBy != "":
			state = "shadowed"
		case !sk.Enabled:
			state = "off"
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", termtext.Line(sk.Name), state, sk.Source, termtext.Line(sk.Dir))
		if sk.Error != "" {
			fmt.Fprintf(&b, "  %s\n", termtext.Line(sk.Error))
		} else if sk.ShadowedBy != "" {
			fmt.Fprintf(&b, "  the skill of the same name in %s is used\n", termtext.Line(sk.ShadowedBy))
		}
	}
	return b.String()
}

func formatSkill(sk Skill) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, %s)\n%s\n", sk.Name, sk.Source, sk.Dir, sk.Description)
	if sk.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", sk.Error)
		return b.String()
	}
	if !sk.Enabled {
		b.WriteString("switched off\n")
	}
	res, more := resources(sk.Dir)
	for _, r := range res {
		fmt.Fprintf(&b, "  %s\t%d bytes\n", r.Path, r.Size)
	}
	if more {
		b.WriteString("  …\n")
	}
	return b.String()
}
