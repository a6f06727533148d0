package service

import (
	"context"
	"fmt"

	"github.com/cairn-app/cairn/backend/agents"
	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/files"
	"github.com/cairn-app/cairn/backend/kb"
	"github.com/cairn-app/cairn/backend/location"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/sandbox"
	"github.com/cairn-app/cairn/backend/skills"
	"github.com/cairn-app/cairn/backend/tasks"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/web"
)

// Capabilities is Cairn's one list of capabilities, in the order the window lists their
// toolsets. Adding a capability is its package, its locale strings and one line here;
// every other list (toolsets, their defaults and icons, secrets, settings, commands) is
// derived from this one.
func Capabilities() capability.List {
	return capability.List{
		web.Capability(),
		kb.Capability(),
		files.Capability(),
		sandbox.Capability(),
		skills.Capability(),
		location.Capability(),
		agents.Capability(),
		mcp.Capability(),
		tasks.Capability(),
		metaCapability(),
	}
}

// metaCapability is the tools that reach folded tools and spilled results (tool_search,
// tool_inspect, tool_invoke, tool_read_result): the pipeline itself provides them, in
// every session that has tools.
func metaCapability() capability.Capability {
	return capability.Capability{
		Name: tools.NamespaceMeta, Label: "chat:tools.namespace.meta", Icon: "layers", Fixed: true,
	}
}

// CapabilityEnv is what capability c is opened with on these services.
func (s *Services) CapabilityEnv(c capability.Capability) capability.Env {
	var conversations any
	if s.Chat != nil {
		conversations = s.Chat
	}
	return capability.Env{
		Chat:    conversations,
		DataDir: s.DataDir, DB: s.DB, Bus: s.Bus, Settings: s.Settings, Secrets: s.Secrets, Log: s.Log.With("capability", c.Name),
		Opened: s.opened[c.Name], Tools: s.Tools,
		Peer: s.peer,
		Replace: func(ns string, entries []tools.Entry) error {
			if ns == "" {
				ns = c.Name
			}
			if !c.Owns(ns) {
				return fmt.Errorf("capability %s cannot replace the tools of namespace %s", c.Name, ns)
			}
			prepared, err := c.ToolEntries(entries)
			if err != nil {
				return err
			}
			return s.Tools.ReplaceNamespace(ns, prepared)
		},
	}
}

// openCapabilities registers every capability's tools and starts those with an Open; each
// closes before the services it was opened with.
func (s *Services) openCapabilities(ctx context.Context) error {
	for _, c := range s.Capabilities {
		if len(c.Tools) > 0 {
			entries, err := c.ToolEntries(c.Tools)
			if err == nil {
				err = s.Tools.Register(entries...)
			}
			if err != nil {
				return fmt.Errorf("capability %s: %w", c.Name, err)
			}
		}
		if c.Open == nil {
			continue
		}
		env := s.CapabilityEnv(c)
		opened, err := c.Open(ctx, env)
		if err != nil {
			return fmt.Errorf("capability %s: %w", c.Name, err)
		}
		if opened.Close != nil {
			s.closers = append(s.closers, opened.Close)
		}
		if opened.Value != nil {
			if s.opened == nil {
				s.opened = map[string]any{}
			}
			s.opened[c.Name] = opened.Value
		}
		if opened.Tools != nil {
			if err := env.Replace(c.Name, opened.Tools); err != nil {
				return fmt.Errorf("capability %s: %w", c.Name, err)
			}
		}
	}
	return nil
}

// checkCapabilities turns a mistake in the list into the error Open returns.
func checkCapabilities(l capability.List) error {
	if err := l.Check(); err != nil {
		return apperr.Wrap(err, apperr.Internal, "capabilities")
	}
	return nil
}

// peer is another capability's opened value, for Env.Peer. Values are set while the
// capabilities open, before any call can ask.
func (s *Services) peer(name string) any { return s.opened[name] }

// Opened is what capability name's Open returned as its Value (nil when it has none):
// the facade's way to a capability's own service.
func (s *Services) Opened(name string) any { return s.opened[name] }

// Agents is the sub-agents' service, once the agents capability opened (nil before, or
// in a Cairn opened without it).
func (s *Services) Agents() *agents.Service {
	svc, _ := s.opened[agents.Name].(*agents.Service)
	return svc
}
