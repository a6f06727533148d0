// Command tsgen writes the TypeScript types of what crosses the facade: the arguments and
// results of every exported method of main.App, and the event payloads main.wireEvents
// lists, spelled the way encoding/json spells them. The frontend imports them instead of
// keeping copies that drift from the Go types.
//
//	go run ./backend/cmd/tsgen -o frontend/src/api/generated.ts        # write
//	go run ./backend/cmd/tsgen -o frontend/src/api/generated.ts -check # fail when stale
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"

	"golang.org/x/tools/go/packages"
)

func main() {
	out := flag.String("o", "frontend/src/api/generated.ts", "the file to write")
	check := flag.Bool("check", false, "write nothing; fail when the file differs from what would be written")
	dir := flag.String("dir", ".", "the directory of the facade's package (package main)")
	flag.Parse()
	if err := run(*dir, *out, *check); err != nil {
		fmt.Fprintln(os.Stderr, "tsgen:", err)
		os.Exit(1)
	}
}

func run(dir, out string, check bool) error {
	src, err := generate(dir)
	if err != nil {
		return err
	}
	if !check {
		return os.WriteFile(out, src, 0o644)
	}
	old, err := os.ReadFile(out)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if !bytes.Equal(old, src) {
		return fmt.Errorf("%s is stale: run `make gen` (go generate .) and commit it", out)
	}
	return nil
}

// generate loads the facade's package (its dependencies from export data) and renders it.
func generate(dir string) ([]byte, error) {
	cfg := &packages.Config{Dir: dir, Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax |
		packages.NeedTypesInfo | packages.NeedImports}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		return nil, err
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("want one package in %s, got %d", dir, len(pkgs))
	}
	if packages.PrintErrors(pkgs) > 0 {
		return nil, errors.New("the package does not type-check")
	}
	g := newGenerator(pkgs[0].Fset)
	if err := g.facade(pkgs[0].Types); err != nil {
		return nil, err
	}
	return g.render(), nil
}
