package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/owner"
	"github.com/cairn-app/cairn/backend/service"
)

// A capability's command run while an owner runs runs inside the owner, on its services,
// with the terminal's arguments; its output comes back as frames, one JSON object a line,
// and the terminal writes them as they arrive. Such commands read no stdin.

// runRequest asks the owner to run one capability command.
type runRequest struct {
	Name string   `json:"name"`
	Args []string `json:"args"`
	// Dir is the terminal's working directory: relative paths among Args start there,
	// not in the owner's.
	Dir string `json:"dir,omitempty"`
}

// runFrame is one piece of a command's output, or its end (Done, with its error).
type runFrame struct {
	Out   []byte        `json:"out,omitempty"`
	Err   []byte        `json:"err,omitempty"`
	Done  bool          `json:"done,omitempty"`
	Help  bool          `json:"help,omitempty"` // the command printed its usage (flag.ErrHelp)
	Error *apperr.Error `json:"error,omitempty"`
}

// runInOwner runs the capability command name through the owner and returns what the
// command returned there.
func runInOwner(ctx context.Context, env *Env, c *owner.Client, name string, args []string) error {
	if args == nil {
		args = []string{}
	}
	dir, _ := os.Getwd()
	body, _ := json.Marshal(runRequest{Name: name, Args: args, Dir: dir})
	resp, err := c.Post(ctx, "/control/run", body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var f runFrame
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return apperr.Wrap(err, apperr.Internal, "read the owner's output of %s", name)
		}
		env.Stdout.Write(f.Out)
		env.Stderr.Write(f.Err)
		if f.Done {
			switch {
			case f.Help:
				return flag.ErrHelp
			case f.Error != nil:
				return f.Error
			}
			return nil
		}
	}
	if ctx.Err() != nil {
		return exitError{code: 130}
	}
	return apperr.New(apperr.OwnerGone, "the owner stopped before %s ended", name)
}

// frames writes a running command's output (or a call's progress) to the answer, flushed
// frame by frame.
type frames struct {
	mu  sync.Mutex
	w   http.ResponseWriter
	enc *json.Encoder
}

func (f *frames) send(fr any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.enc.Encode(fr); err != nil {
		return err
	}
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
	return nil
}

type frameStream struct {
	f   *frames
	err bool
}

func (s frameStream) Write(p []byte) (int, error) {
	b := append([]byte(nil), p...)
	fr := runFrame{Out: b}
	if s.err {
		fr = runFrame{Err: b}
	}
	if err := s.f.send(fr); err != nil {
		return 0, err
	}
	return len(p), nil
}

// serveRun runs a capability command for a terminal (POST /control/run) on this
// backend's services, until it ends or the terminal goes.
func (h *Hosting) serveRun(w http.ResponseWriter, r *http.Request) {
	var req runRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, "bad run request", http.StatusBadRequest)
		return
	}
	c, cmd, ok := findCapabilityCommand(service.Capabilities(), req.Name)
	w.Header().Set("Content-Type", "application/x-ndjson")
	f := &frames{w: w, enc: json.NewEncoder(w)}
	if !ok {
		_ = f.send(runFrame{Done: true, Error: apperr.New(apperr.InvalidArgument, "no command %s", apperr.Quote(req.Name)).
			WithParam("message", "no command "+apperr.Quote(req.Name))})
		return
	}
	t := capability.Terminal{
		Dir:    req.Dir,
		Stdin:  strings.NewReader(""),
		Stdout: frameStream{f: f},
		Stderr: frameStream{f: f, err: true},
		Open:   func(context.Context) (capability.Env, error) { return h.s.CapabilityEnv(c), nil },
	}
	err := cmd.Run(r.Context(), t, req.Args)
	end := runFrame{Done: true}
	if errors.Is(err, flag.ErrHelp) {
		end.Help = true
	} else if err != nil {
		end.Error = h.s.Redact.Error(apperr.From(err))
	}
	_ = f.send(end)
}

func findCapabilityCommand(l capability.List, name string) (capability.Capability, capability.Command, bool) {
	for _, c := range l {
		for _, cmd := range c.Commands {
			if cmd.Name == name {
				return c, cmd, true
			}
		}
	}
	return capability.Capability{}, capability.Command{}, false
}
