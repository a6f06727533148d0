// Package capability is the seam between a capability (web search, knowledge bases, the
// sandbox, MCP, …) and the rest of Cairn. A capability lives in its own package and hands
// `service` one Capability value saying everything the rest needs to know about it; every
// list of capabilities (the toolsets a session may enable and their defaults, the secrets
// Settings manages, the settings specs, the CLI's commands, the window's toolset toggles
// and icons) is derived from service's one list of these values.
package capability

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"

	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/cairn-app/cairn/backend/tools"
)

// Capability is what a capability declares about itself. Only Name is required.
type Capability struct {
	// Name is the toolset a session enables ("web", "mcp") and the namespace of its tools
	// (an MCP server's tools are in "mcp:<serverId>" under the toolset "mcp").
	Name string
	// Label is the i18n key of the toolset's name in the window ("chat:tools.namespace.web").
	Label string
	// Icon names the window's icon for its tools ("globe"; frontend components/Icon).
	Icon string
	// On says whether a new chat or task session has the toolset enabled.
	On Sessions
	// Fixed marks tools every session has whatever its toolsets (the meta tools): the
	// toolset is not offered as a session's choice.
	Fixed bool
	// Instruction is added to the system prompt of a request that has the toolset on and
	// at least one of its tools.
	Instruction string
	// Tools are the capability's tool entries (tools.Typed builds them). Their Namespace
	// defaults to Name, and each applies only where the toolset is on.
	Tools []tools.Entry
	// Section is the capability's Settings page, its id in the window's address
	// (#/settings/<section>, "web-search"); its title and description are the settings
	// locale's sections.<section>. Empty: the capability has no page of its own. The
	// window lists these pages between its own (ListToolsets carries them).
	Section string
	// Settings are the capability's settings specs; their section is the Settings page
	// that shows them (Section).
	Settings []settings.Spec
	// Secrets are the names of the keys the capability reads; Settings and `cairn secrets`
	// set and delete exactly these (besides providers' and MCP servers' own).
	Secrets []string
	// Commands are the capability's `cairn` subcommands.
	Commands []Command
	// Open starts the capability on the data directory's services, after they opened; nil
	// when it has nothing to start. What it returns replaces Tools when it has tools.
	Open func(ctx context.Context, env Env) (Opened, error)
}

// Sessions says, per session kind, whether a toolset is on by default.
type Sessions struct {
	Chat bool
	Task bool
}

// Env is what a capability is opened with: the data directory's shared services.
type Env struct {
	DataDir  string
	DB       *store.DB
	Bus      *events.Bus
	Settings *settings.Service
	Secrets  Secrets
	Log      *slog.Logger
	// Replace makes the capability's namespace (or ns under it, for a capability with
	// several, such as MCP's servers) hold exactly these entries: the way a dynamic set
	// (skills, knowledge bases) changes its tools while Cairn runs.
	Replace func(ns string, entries []tools.Entry) error
	// Chat is the conversations service (a *chat.Service), for a capability that runs
	// conversations of its own (sub-agents): it asserts the interface it needs. It is
	// untyped because chat itself reads capabilities (knowledge bases). Nil in commands.
	Chat any
	// Tools is the registry, for a capability that reads other tools' declarations
	// (what a call touches). Nil in commands.
	Tools *tools.Registry
	// Opened is the Value the capability's Open returned, once it has opened (nil before,
	// or when it has none): a command run on opened services uses the running capability
	// instead of starting a second one.
	Opened any
	// Peer is the Value another capability's Open returned (nil before it opened, or when
	// it has none), asked when needed rather than at Open, since capabilities open one
	// after another: the way one capability uses another's service (the sandbox's
	// background commands run as the tasks capability's tasks). Nil in an Env built by
	// hand.
	Peer func(name string) any
}

// Secrets is how a capability reads the keys it declared.
type Secrets interface {
	Get(name string) (value string, ok bool, err error)
}

// Opened is a started capability.
type Opened struct {
	// Tools, when not nil, replace the declared Tools (a set known only once opened).
	Tools []tools.Entry
	// Close stops it; service calls it before the shared services close. Optional.
	Close func() error
	// Value is the started capability itself (a *kb.Service), for the facade methods of
	// its Settings page or window; service keeps it by name (Services.Opened). Optional.
	Value any
}

// Command is one `cairn` subcommand of a capability.
type Command struct {
	Name    string
	Summary string // one line for `cairn help`
	Run     func(ctx context.Context, t Terminal, args []string) error
	// Local runs the command in the terminal's own process even when an owner is
	// running (it needs the terminal's stdin and passes an exit code on), without
	// services: Terminal.Open is nil then.
	Local bool
}

// Terminal is what a command runs with.
type Terminal struct {
	// Dir is the terminal's working directory, where relative paths among the arguments
	// start (a command run inside the owner runs in another process's directory).
	Dir string
	// DataDir is the data directory the command is for.
	DataDir string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	// Open opens the data directory's services, as a capability's Open gets them; the
	// command ends before they close.
	Open func(ctx context.Context) (Env, error)
}

// Toolset is a capability as the window lists it (ListToolsets).
type Toolset struct {
	Name  string `json:"name"`
	Label string `json:"label"` // i18n key
	Icon  string `json:"icon"`
	Chat  bool   `json:"chat"`  // on in a new chat session
	Task  bool   `json:"task"`  // on in a new task session
	Fixed bool   `json:"fixed"` // in every session, not a session's choice
	// Section is the capability's Settings page, when it has one.
	Section string `json:"section,omitempty"`
}

// List is the capabilities of one Cairn, in the order the window lists their toolsets.
type List []Capability

// Toolsets is the list the window shows.
func (l List) Toolsets() []Toolset {
	out := make([]Toolset, 0, len(l))
	for _, c := range l {
		out = append(out, Toolset{Name: c.Name, Label: c.Label, Icon: c.Icon, Chat: c.On.Chat, Task: c.On.Task, Fixed: c.Fixed, Section: c.Section})
	}
	return out
}

// Choosable names the toolsets a session may enable.
func (l List) Choosable() []string {
	var out []string
	for _, c := range l {
		if !c.Fixed {
			out = append(out, c.Name)
		}
	}
	return out
}

// Defaults are the toolsets of a new session of kind ("chat" or "task").
func (l List) Defaults(kind string) []string {
	out := []string{}
	for _, c := range l {
		if !c.Fixed && ((kind == "task" && c.On.Task) || (kind != "task" && c.On.Chat)) {
			out = append(out, c.Name)
		}
	}
	return out
}

// Secrets are the names every capability reads, in list order.
func (l List) Secrets() []string {
	var out []string
	for _, c := range l {
		out = append(out, c.Secrets...)
	}
	return out
}

// Settings are every capability's settings specs, in list order.
func (l List) Settings() []settings.Spec {
	var out []settings.Spec
	for _, c := range l {
		out = append(out, c.Settings...)
	}
	return out
}

// ToolEntries are entries of c as the registry gets them: in c's namespace unless they name
// one under it, applying only where the toolset is on (and where their own Applies holds),
// carrying c's instruction. An entry not built with tools.Typed is refused: a built-in tool
// has a generated schema and says itself what its calls touch.
func (c Capability) ToolEntries(entries []tools.Entry) ([]tools.Entry, error) {
	out := make([]tools.Entry, 0, len(entries))
	for _, e := range entries {
		if !e.Typed() {
			return nil, fmt.Errorf("tool %s of capability %s is not built with tools.Typed", e.Name, c.Name)
		}
		if e.Namespace == "" {
			e.Namespace = c.Name
		}
		if e.Instruction == "" {
			e.Instruction = c.Instruction
		}
		if !c.Fixed {
			own, on := e.Applies, tools.WhenToolset(c.Name)
			e.Applies = func(s tools.Scope) bool { return on(s) && (own == nil || own(s)) }
		}
		out = append(out, e)
	}
	return out, nil
}

// Owns reports whether a namespace is c's: its name, or one under it ("mcp:<id>").
func (c Capability) Owns(ns string) bool {
	return ns == c.Name || strings.HasPrefix(ns, c.Name+":")
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9]{0,15}$`)

// Check says what is wrong with the list: a name that is not a short lowercase word (it
// starts the wire names of its tools), or a toolset, secret, setting or command that two
// capabilities (or a capability and Cairn itself) both claim. A test runs it on service's
// list, so a mistake is found before anything starts.
// coreSections are the Settings pages the window has of its own (frontend
// shell/routes.ts CORE_SECTIONS); a capability's page is another.
var coreSections = map[string]bool{"providers": true, "assistants": true, "tools": true, "permissions": true, "general": true, "about": true}

var sectionRE = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

func (l List) Check() error {
	var errs []error
	seen := map[string]string{}
	claim := func(kind, key, owner string) {
		k := kind + " " + key
		if prev, ok := seen[k]; ok {
			errs = append(errs, fmt.Errorf("%s %q is claimed by %s and %s", kind, key, prev, owner))
			return
		}
		seen[k] = owner
	}
	for _, c := range l {
		if !nameRE.MatchString(c.Name) {
			errs = append(errs, fmt.Errorf("capability name %q is not a short lowercase word", c.Name))
		}
		claim("capability", c.Name, c.Name)
		if c.Label == "" || c.Icon == "" {
			errs = append(errs, fmt.Errorf("capability %q needs a label and an icon", c.Name))
		}
		for _, n := range c.Secrets {
			claim("secret", n, c.Name)
		}
		if c.Section != "" {
			if !sectionRE.MatchString(c.Section) || coreSections[c.Section] {
				errs = append(errs, fmt.Errorf("settings section %q of %s is not a free lowercase slug", c.Section, c.Name))
			}
			claim("settings section", c.Section, c.Name)
		}
		for _, sp := range c.Settings {
			if _, core := settings.Lookup(sp.Key); core {
				errs = append(errs, fmt.Errorf("setting %q of %s is one of Cairn's own", sp.Key, c.Name))
			}
			if sp.Section != c.Section && !coreSections[sp.Section] {
				errs = append(errs, fmt.Errorf("setting %q of %s is in section %q, neither its page %q nor one of Cairn's", sp.Key, c.Name, sp.Section, c.Section))
			}
			claim("setting", sp.Key, c.Name)
		}
		for _, cmd := range c.Commands {
			claim("command", cmd.Name, c.Name)
		}
	}
	return errors.Join(errs...)
}

// OnService runs a command on the capability's service: the one the terminal's services
// already run (Env.Opened) when they opened it, so a command inside the owner never
// starts a second worker or watcher on the same database, else one opened with open for
// this command alone and closed after it.
func OnService[T any, S interface {
	*T
	Close() error
}](ctx context.Context, term Terminal, open func(context.Context, Env) (S, error), run func(S) error) error {
	env, err := term.Open(ctx)
	if err != nil {
		return err
	}
	if svc, ok := env.Opened.(S); ok && svc != nil {
		return run(svc)
	}
	svc, err := open(ctx, env)
	if err != nil {
		return err
	}
	defer svc.Close()
	return run(svc)
}
