//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// landlockSelf restricts the calling (locked) thread to the spec's paths, with TCP and
// UDP (where the kernel handles them), abstract Unix sockets and signals outside the
// sandbox denied. It returns the ABI applied (0 when nothing was).
func landlockSelf(sp spec) (int, error) {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return 0, errLandlockMissing(err)
	}
	var rules []landlock.Rule
	rules = append(rules, pathRules(sp.ReadOnly, false)...)
	rules = append(rules, pathRules(sp.ReadWrite, true)...)
	if sp.Forward {
		// The forwarder listens on, and the command connects to, the sandbox's own
		// loopback port (its network namespace has nothing else).
		rules = append(rules, landlock.BindTCP(fwdPort), landlock.ConnectTCP(fwdPort))
	}
	fd, flags, err := landlock.V11.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return 0, err
	}
	if fd < 0 {
		return 0, errLandlockMissing(nil)
	}
	defer syscall.Close(fd)
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return 0, err
	}
	return abi, nil
}

// pathRules are the Landlock rules for paths, each a folder or a file (the rights a
// folder takes are not valid on a file); missing ones are skipped.
func pathRules(paths []string, write bool) []landlock.Rule {
	var out []landlock.Rule
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		var r landlock.FSRule
		switch {
		case st.IsDir() && write:
			r = landlock.RWDirs(p).WithRefer().WithResolveUnix()
		case st.IsDir():
			r = landlock.RODirs(p)
		case write:
			r = landlock.RWFiles(p)
		default:
			r = landlock.ROFiles(p)
		}
		if st.Mode()&os.ModeDevice != 0 {
			r = r.WithIoctlDev()
		}
		out = append(out, r.IgnoreIfMissing())
	}
	return out
}

func errLandlockMissing(err error) error {
	if err != nil {
		return fmt.Errorf("Landlock is not available in this kernel: %w", err)
	}
	return errors.New("Landlock is not available in this kernel")
}
