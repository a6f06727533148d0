package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/capability"
)

// TestCommandNamesUnique: no capability's command shadows one of Cairn's own.
func TestCommandNamesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands() {
		if seen[c.Name] {
			t.Fatalf("command %q is there twice", c.Name)
		}
		seen[c.Name] = true
	}
}

// TestCapabilityCommandRuns: a capability's command gets its arguments and the terminal,
// opens the data directory only when it asks, with the capability's own environment.
func TestCapabilityCommandRuns(t *testing.T) {
	opened := 0
	demo := capability.Capability{Name: "demo", Label: "x", Icon: "tool", Commands: []capability.Command{{
		Name: "demo", Summary: "say hello",
		Run: func(ctx context.Context, term capability.Terminal, args []string) error {
			if len(args) > 0 && args[0] == "open" {
				env, err := term.Open(ctx)
				if err != nil {
					return err
				}
				if _, err := term.Open(ctx); err != nil { // the same services again
					return err
				}
				opened++
				fmt.Fprintf(term.Stdout, "data dir set: %v\n", env.DataDir != "" && env.DB != nil)
			}
			fmt.Fprintf(term.Stdout, "hello %s\n", strings.Join(args, " "))
			return nil
		},
	}}}
	cmds := capabilityCommands(capability.List{demo})
	if len(cmds) != 1 || cmds[0].Name != "demo" || cmds[0].Summary != "say hello" {
		t.Fatalf("commands = %+v", cmds)
	}
	var out bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &out, DataDir: t.TempDir()}
	if err := cmds[0].Run(context.Background(), env, []string{"open", "x"}); err != nil {
		t.Fatal(err)
	}
	if opened != 1 || out.String() != "data dir set: true\nhello open x\n" {
		t.Fatalf("opened %d, output %q", opened, out.String())
	}
}
