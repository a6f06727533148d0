package sandbox

import (
	"context"
	"io"

	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/sandbox/confine"
)

// Confined runs the tools in the operating system's sandbox (package confine). The
// sandbox is made to allow unconfined runs: whether a call may run without a sandbox is
// the user's switch, which the tools read on every call (Service.place refuses first).
type Confined struct{ SB *confine.Sandbox }

// defaultEngine is the sandbox this machine gives, probed on first use; Local (level
// none) when it cannot even be prepared.
func defaultEngine(env capability.Env) Engine {
	sb, err := confine.New(env.DataDir, confine.Options{AllowUnconfined: true})
	if err != nil {
		if env.Log != nil {
			env.Log.Warn("sandbox: cannot prepare the sandbox; the task tools run only unsandboxed", "err", err)
		}
		return Local{}
	}
	return Confined{SB: sb}
}

// Status is the probe's status in the tools' terms.
func (c Confined) Status(ctx context.Context) Status {
	st := c.SB.Status(ctx)
	hold := func(area string, a confine.Aspect) Hold { return Hold{Area: area, Holds: a.Holds, Detail: a.Detail} }
	return Status{Level: Level(st.Level), Reasons: st.Reasons, Holds: []Hold{
		hold("reads", st.Reads), hold("writes", st.Writes), hold("network", st.Network),
		hold("processes", st.Processes), hold("limits", st.Limits),
	}}
}

func policy(p Place) confine.Policy {
	return confine.Policy{Workspace: p.Workspace, Dir: p.Dir, Protected: p.Protected}
}

// RunOp runs the op in Cairn's re-executed helper, confined.
func (c Confined) RunOp(ctx context.Context, p Place, op string, req []byte) ([]byte, error) {
	return c.SB.RunOp(ctx, policy(p), op, req)
}

// Start starts argv confined.
func (c Confined) Start(ctx context.Context, p Place, argv []string, stdin io.Reader) (Process, error) {
	pr, err := c.SB.Start(ctx, policy(p), argv, stdin)
	if err != nil {
		return nil, err
	}
	return confinedProc{pr}, nil
}

type confinedProc struct{ p *confine.Process }

func (c confinedProc) Stdout() io.Reader  { return c.p.Stdout }
func (c confinedProc) Stderr() io.Reader  { return c.p.Stderr }
func (c confinedProc) Wait() (int, error) { return c.p.Wait() }
func (c confinedProc) Kill() error        { c.p.Kill(); return nil }
func (c confinedProc) Level() Level       { return Level(c.p.Level) }
