package confine

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cairn-app/cairn/backend/sandbox/ops"
)

// The helper's hidden subcommands: the first argument of a re-executed Cairn.
const (
	execArg  = "__sandbox-exec"    // apply the policy in specEnv, then exec the command after "--"
	opArg    = "__sandbox-op"      // run a file operation (only once confined)
	probeArg = "__sandbox-probe"   // apply the policy, then report what holds
	fwdArg   = "__sandbox-forward" // inside: carry 127.0.0.1:fwdPort to the proxy's socket
	specEnv  = "CAIRN_SANDBOX_SPEC"
	gateFD   = 3 // with spec.Gate, the helper waits for a byte here (the cgroup is joined)
	// unconfinedEnv lets a file operation run without a sandbox: set by Cairn only at the
	// level none, when the user allowed running unsandboxed.
	unconfinedEnv = "CAIRN_SANDBOX_UNCONFINED"
)

// spec is what the helper applies to itself before it runs the command: sent in specEnv
// (base64 JSON), removed before the command starts.
type spec struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
	// ReadOnly and ReadWrite are the Landlock rules (files or folders, as seen inside).
	ReadOnly  []string `json:"ro"`
	ReadWrite []string `json:"rw"`
	// NeedLandlock fails the start when Landlock cannot be applied (reduced level: it is
	// the only wall for files there).
	NeedLandlock bool `json:"needLandlock"`
	// UnixSockets allows socket(AF_UNIX): at the strong level nothing outside is mounted
	// to connect to; at the reduced level a host socket (a container daemon's) could be.
	UnixSockets bool   `json:"unix"`
	Limits      Limits `json:"limits"`
	Gate        bool   `json:"gate"`
	// Forward starts the forwarder to Cairn's proxy (the strong level with a domain
	// list): the command's own network namespace holds only loopback, so allowing
	// IP sockets reaches nothing else.
	Forward bool `json:"forward"`
}

func (s spec) encode() string {
	b, _ := json.Marshal(s)
	return base64.StdEncoding.EncodeToString(b)
}

func readSpec() (spec, error) {
	var s spec
	v := os.Getenv(specEnv)
	if v == "" {
		return s, errors.New("no sandbox specification")
	}
	_ = os.Unsetenv(specEnv)
	b, err := base64.StdEncoding.DecodeString(v)
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	return s, err
}

// Entry runs the sandbox helper when args (os.Args) ask for it, and reports whether they
// did; main calls it first, before anything else starts. Either way it first marks the
// descriptors the process inherited close-on-exec, so none reaches a sandboxed command.
func Entry(args []string) (code int, handled bool) {
	closeOnExec()
	if len(args) < 2 {
		return 0, false
	}
	switch args[1] {
	case execArg:
		return helperMain(args[2:]), true
	case probeArg:
		return probeMain(os.Stdout), true
	case fwdArg:
		return forwardMain(), true
	case opArg:
		if len(args) < 3 {
			fmt.Fprintln(os.Stderr, "cairn: no operation")
			return 2, true
		}
		return opMain(args[2], os.Stdin, os.Stdout), true
	}
	return 0, false
}

// opMain runs a file operation, but only in a confined process: run by hand, or by a
// caller that skipped the helper, it refuses rather than act unconfined.
func opMain(op string, stdin io.Reader, stdout io.Writer) int {
	if err := checkConfined(); err != nil {
		fmt.Fprintln(os.Stderr, "cairn: refusing to run a file operation outside the sandbox:", err)
		return 125
	}
	return ops.Main(op, stdin, stdout)
}

// probeOp is the pseudo operation the probe runs: the helper's probe mode.
const probeOp = "\x00probe"

func opArgv(exe, op string) []string {
	if op == probeOp {
		return []string{exe, probeArg}
	}
	return []string{exe, opArg, op}
}
