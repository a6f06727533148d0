package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/termtext"
)

// stringList is a repeatable string flag (--model a --model b, or --model a,b).
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*s = append(*s, p)
		}
	}
	return nil
}

const providerUsage = `usage:
  cairn provider add NAME --base-url URL --model MODEL [--model MODEL2] [--preset ID] [--api-key-stdin]
                          [--context-window N] [--no-tools] [--vision] [--reasoning]
  cairn provider edit NAME [--base-url URL] [--api-key-stdin | --keep-key]
                          (a base URL on another host needs the key again, or --keep-key)
  cairn provider list [--json]
  cairn provider presets [--json]
  cairn provider models NAME [--json]     (fetch the list from the provider)
  cairn provider test NAME [--model MODEL]
  cairn provider price NAME MODEL --input X --output Y [--cached Z] [--currency USD]
                          (per million tokens; --clear returns to the provider's or the default price)
  cairn provider prices NAME [--json]
  cairn provider remove NAME
The API key is read from stdin (--api-key-stdin), never from arguments.`

func runProvider(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "provider")
	asJSON := f.Bool("json", false, "print JSON")
	baseURL := f.String("base-url", "", "OpenAI-compatible base URL (…/v1)")
	preset := f.String("preset", "", "preset id (openai, deepseek, mistral, openrouter, moonshot, zhipu, qwen, siliconflow, ollama, lmstudio, custom)")
	keyStdin := f.Bool("api-key-stdin", false, "read the API key from stdin")
	keepKey := f.Bool("keep-key", false, "edit: send the stored key to the new base URL's host too")
	ctxWin := f.Int("context-window", 0, "context window of the models, in tokens")
	noTools := f.Bool("no-tools", false, "the models do not support tools")
	vision := f.Bool("vision", false, "the models accept images")
	reasoning := f.Bool("reasoning", false, "the models reason (show reasoning parts)")
	var models stringList
	f.Var(&models, "model", "model id (repeatable)")
	var pf priceFlags
	f.StringVar(&pf.input, "input", "", "price: input (prompt) tokens, per million")
	f.StringVar(&pf.output, "output", "", "price: output (completion) tokens, per million")
	f.StringVar(&pf.cached, "cached", "", "price: cached input tokens, per million (leave out when unknown)")
	f.StringVar(&pf.currency, "currency", "", "price: currency code (default USD)")
	f.BoolVar(&pf.clear, "clear", false, "price: remove your price of the model")
	f.Usage = func() { fmt.Fprintln(env.Stderr, providerUsage) }
	pos, err := parseInterspersed(f, args)
	if err != nil {
		return flagErr(err)
	}
	if len(pos) == 0 {
		pos = []string{"list"}
	}
	sub, rest := pos[0], pos[1:]
	if sub == "presets" {
		return printPresets(env, *asJSON)
	}
	cn, err := env.connect(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	s := cn.providers()
	switch sub {
	case "add":
		if len(rest) != 1 {
			return usageErr("%s", providerUsage)
		}
		in := llm.ProviderInput{Name: rest[0], Preset: *preset, BaseURL: *baseURL}
		for i, m := range models {
			mod := llm.GuessModel(m)
			mod.Source = llm.SourceManual
			if *ctxWin > 0 {
				mod.ContextWindow = *ctxWin
			}
			if *noTools {
				mod.SupportsTools = false
			}
			mod.Vision = mod.Vision || *vision
			mod.Reasoning = mod.Reasoning || *reasoning
			in.Models = append(in.Models, mod)
			if i == 0 {
				in.DefaultModel = m
			}
		}
		if *keyStdin {
			key, err := readSecret(ctx, env, "API key (typing is hidden): ")
			if err != nil {
				return err
			}
			if strings.TrimSpace(key) == "" {
				return usageErr("--api-key-stdin: nothing on stdin")
			}
			in.APIKey = key
		}
		p, err := s.Save(ctx, in)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(env.Stdout, p)
		}
		key := "no key"
		if p.KeySet {
			key = "key stored in " + s.KeyBackend(ctx)
		}
		fmt.Fprintf(env.Stdout, "added %s (%s, %s, %d models)\n", termtext.Line(p.Name), termtext.Line(p.BaseURL), key, len(p.Models))
		return nil
	case "edit":
		if len(rest) != 1 {
			return usageErr("%s", providerUsage)
		}
		return editProvider(ctx, env, s, rest[0], editFlags{baseURL: *baseURL, keyStdin: *keyStdin, keepKey: *keepKey, asJSON: *asJSON})
	case "list":
		snap, err := s.List(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(env.Stdout, snap.Providers)
		}
		if len(snap.Providers) == 0 {
			fmt.Fprintln(env.Stdout, "no providers yet: cairn provider add NAME --base-url URL --model MODEL [--api-key-stdin]")
			return nil
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tBASE URL\tKEY\tDEFAULT MODEL\tMODELS")
		for _, p := range snap.Providers {
			key := "-"
			if p.KeySet {
				key = "set"
				if p.KeyLast4 != "" {
					key += " (…" + p.KeyLast4 + ")"
				}
			} else if p.NeedsKey {
				key = "MISSING"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\n", termtext.Line(p.Name), termtext.Line(p.BaseURL), termtext.Line(key), termtext.Line(orDash(p.DefaultModel)), len(p.Models))
		}
		return tw.Flush()
	case "models":
		if len(rest) != 1 {
			return usageErr("usage: cairn provider models NAME")
		}
		p, err := s.FetchModels(ctx, rest[0])
		if err != nil {
			return s.RedactError(apperr.From(err)) // a provider's error may echo the key
		}
		if *asJSON {
			return writeJSON(env.Stdout, p.Models)
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "MODEL\tCONTEXT\tTOOLS\tVISION\tREASONING\tSOURCE")
		for _, m := range p.Models {
			fmt.Fprintf(tw, "%s\t%d\t%v\t%v\t%v\t%s\n", termtext.Line(m.ID), m.ContextWindow, m.SupportsTools, m.Vision, m.Reasoning, m.Source)
		}
		return tw.Flush()
	case "test":
		if len(rest) != 1 {
			return usageErr("usage: cairn provider test NAME [--model MODEL]")
		}
		model := ""
		if len(models) > 0 {
			model = models[0]
		}
		res, err := s.Test(ctx, rest[0], model)
		if err != nil {
			return err
		}
		res.Error = s.RedactError(res.Error) // a provider's error may echo the key
		if *asJSON {
			return writeJSON(env.Stdout, res)
		}
		if res.Error != nil {
			return res.Error
		}
		fmt.Fprintf(env.Stdout, "ok: %s answered %s in %d ms\n", termtext.Line(res.Model), termtext.Line(`"`+res.Reply+`"`), res.LatencyMs)
		return nil
	case "price":
		if len(rest) != 2 {
			return usageErr("usage: cairn provider price NAME MODEL --input X --output Y [--cached Z] [--currency USD] | --clear")
		}
		return setPrice(ctx, env, s, rest[0], rest[1], pf, *asJSON)
	case "prices":
		if len(rest) != 1 {
			return usageErr("usage: cairn provider prices NAME [--json]")
		}
		return printPrices(ctx, env, s, rest[0], *asJSON)
	case "remove", "rm", "delete":
		if len(rest) != 1 {
			return usageErr("usage: cairn provider remove NAME")
		}
		if err := s.Delete(ctx, rest[0]); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "removed %s\n", termtext.Line(rest[0]))
		return nil
	}
	return usageErr("unknown provider subcommand %s\n%s", apperr.Quote(sub), providerUsage)
}

func printPresets(env *Env, asJSON bool) error {
	ps := llm.Presets()
	if asJSON {
		return writeJSON(env.Stdout, ps)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	for _, p := range ps {
		key := "no key"
		if p.NeedsKey {
			key = "needs key"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.ID, p.Name, orDash(p.BaseURL), key)
	}
	return tw.Flush()
}

type editFlags struct {
	baseURL           string
	keyStdin, keepKey bool
	asJSON            bool
}

// editProvider changes a provider's base URL or key; the rest stays as it is. A base URL
// on another host is refused unless the key comes again or --keep-key says the stored one
// may go there.
func editProvider(ctx context.Context, env *Env, s providerBackend, ref string, fl editFlags) error {
	cur, err := s.Get(ctx, ref)
	if err != nil {
		return err
	}
	in := llm.ProviderInput{ID: cur.ID, Name: cur.Name, Preset: cur.Preset, BaseURL: cur.BaseURL, KeepKey: fl.keepKey}
	if fl.baseURL != "" {
		in.BaseURL = fl.baseURL
	}
	if fl.keyStdin {
		key, err := readSecret(ctx, env, "API key (typing is hidden): ")
		if err != nil {
			return err
		}
		if strings.TrimSpace(key) == "" {
			return usageErr("--api-key-stdin: nothing on stdin")
		}
		in.APIKey = key
	}
	p, err := s.Save(ctx, in)
	if apperr.Is(err, apperr.ProviderKeyHostMoved) {
		fmt.Fprintln(env.Stderr, "  (give the key for the new address with --api-key-stdin, or pass --keep-key to send the stored one there)")
	}
	if err != nil {
		return err
	}
	if fl.asJSON {
		return writeJSON(env.Stdout, p)
	}
	key := "no key"
	if p.KeySet {
		key = "key set"
	}
	fmt.Fprintf(env.Stdout, "updated %s (%s, %s)\n", p.Name, p.BaseURL, key)
	return nil
}
