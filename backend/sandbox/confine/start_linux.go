//go:build linux

package confine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// start lays out the run for its level and starts it.
func (s *Sandbox) start(ctx context.Context, lv Level, pol Policy, argv []string, stdin io.Reader, op string) (*Process, error) {
	l, err := s.layoutFor(lv, pol)
	if err != nil {
		return nil, err
	}
	var px *proxy
	if len(pol.Network) > 0 {
		if px, err = s.startProxy(lv, &l); err != nil {
			l.cleanup()
			return nil, err
		}
	}
	var cg cgroups
	if lv != None {
		cg = newCgroups(pol.Limits.Processes)
	}
	cmd, h, err := s.command(lv, l, argv, op, cg.any())
	if err != nil {
		cg.remove()
		l.cleanup()
		return nil, err
	}
	p, err := launch(ctx, cmd, h, stdin, lv, cg)
	if err != nil {
		cg.remove()
		l.cleanup()
		return nil, err
	}
	p.cleanup, p.proxy = l.cleanup, px
	return p, nil
}

// startProxy starts the run's network proxy on a socket in a private folder, which the
// strong level mounts into the sandbox. Other levels have no network namespace to keep
// the rest of the network out, so they refuse a domain list rather than open it all.
func (s *Sandbox) startProxy(lv Level, l *layout) (*proxy, error) {
	if lv != Strong {
		return nil, fmt.Errorf("allowing network domains needs the strong sandbox level (this run is at %s); the network stays off", lv)
	}
	dir, err := os.MkdirTemp("", "cairn-sbx-net-")
	if err != nil {
		return nil, err
	}
	l.proxyDir, l.proxySock = dir, filepath.Join(dir, "proxy.sock")
	px, err := newProxy(l.proxySock, l.pol.Network, s.opts.ProxyDialer)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("start the network proxy: %w", err)
	}
	return px, nil
}

// layoutFor checks the policy's paths against what is never exposed and prepares the
// run's home and temporary folders.
func (s *Sandbox) layoutFor(lv Level, pol Policy) (layout, error) {
	hidden := s.hidden()
	l := layout{pol: pol, exe: s.exe}
	if err := checkExposed("workspace", pol.Workspace, hidden); err != nil {
		return l, err
	}
	var err error
	if l.readOnly, err = s.readOnlyPaths(pol, hidden); err != nil {
		return l, err
	}
	if l.readWrite, err = readWritePaths(pol, hidden); err != nil {
		return l, err
	}
	if l.protected, err = existingProtected(pol); err != nil {
		return l, err
	}
	if lv == Strong {
		l.home, l.tmp = strongHome(), "/tmp"
		l.placeholders = missingProtected(pol)
		return l, nil
	}
	if l.scratch, err = os.MkdirTemp("", "cairn-sbx-"); err != nil {
		return l, fmt.Errorf("make the sandbox's private folders: %w", err)
	}
	l.home, l.tmp = filepath.Join(l.scratch, "home"), filepath.Join(l.scratch, "tmp")
	for _, d := range []string{l.home, l.tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			l.cleanup()
			return l, err
		}
	}
	return l, nil
}

func (l layout) cleanup() {
	removePlaceholders(l.placeholders)
	for _, d := range []string{l.scratch, l.proxyDir} {
		if d != "" {
			_ = os.RemoveAll(d)
		}
	}
}

// command builds the exec.Cmd of the run and the spec its helper applies. A plain
// command at the strong level runs without the helper (see direct): the hold returned
// then carries what the helper would have applied.
func (s *Sandbox) command(lv Level, l layout, argv []string, op string, gate bool) (*exec.Cmd, *hold, error) {
	env := baseEnv(l.pol, l.home, l.tmp)
	sp := spec{Argv: argv, Env: env, Dir: l.pol.Dir, Limits: l.pol.Limits, Gate: gate}
	switch lv {
	case Strong:
		return s.strongCommand(l, sp, op)
	case Reduced:
		if op != "" {
			sp.Argv = opArgv(s.exe, op)
		}
		sp.ReadOnly = append(append(append([]string{}, systemDirs...), "/proc", s.exe), l.readOnly...)
		sp.ReadOnly = append(sp.ReadOnly, allowedBeneath("/etc", hiddenEtc)...)
		sp.ReadWrite = []string{l.pol.Workspace, l.scratch, "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}
		sp.ReadWrite = append(sp.ReadWrite, l.readWrite...)
		sp.NeedLandlock = true
		cmd := exec.Command(s.exe, append([]string{execArg, "--"}, sp.Argv...)...)
		cmd.Env = []string{specEnv + "=" + sp.encode()}
		return cmd, nil, nil
	}
	if op != "" {
		argv = opArgv(s.exe, op)
		env = append(env, unconfinedEnv+"=1")
	}
	path, err := lookPath(argv[0], env)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", argv[0], err)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Env, cmd.Dir = env, l.pol.Dir
	return cmd, nil, nil
}

// strongCommand runs the command under bubblewrap: through the helper for a file
// operation, with the proxy's forwarder, or for a command not found (the helper says so
// and exits 127), else directly.
func (s *Sandbox) strongCommand(l layout, sp spec, op string) (*exec.Cmd, *hold, error) {
	bw := s.opts.Bwrap
	if bw == "" {
		bw = "bwrap"
	}
	path, err := exec.LookPath(bw)
	if err != nil {
		return nil, nil, fmt.Errorf("bubblewrap: %w", err)
	}
	if op == "" && l.proxySock == "" && !s.noDirect {
		if _, err := lookPath(sp.Argv[0], sp.Env); err == nil {
			return direct(path, l, sp)
		}
	}
	if op != "" {
		sp.Argv = opArgv(insideExe, op)
	}
	sp.ReadOnly = append(append(append([]string{}, systemDirs...), "/etc", "/proc", insideExe), l.readOnly...)
	sp.ReadWrite = append([]string{l.pol.Workspace, "/tmp", l.home, "/dev"}, l.readWrite...)
	sp.UnixSockets = true
	if l.proxySock != "" {
		sp.Forward = true
		sp.ReadWrite = append(sp.ReadWrite, insideProxy)
		for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"} {
			sp.Env = append(sp.Env, k+"="+proxyURL)
		}
	}
	args := append(bwrapArgs(l), "--setenv", specEnv, sp.encode(), "--", insideExe, execArg, "--")
	cmd := exec.Command(path, append(args, sp.Argv...)...)
	// bwrap's own process stays in the sandbox as its pid 1, whose environ the
	// command can read: it gets none of Cairn's (--clearenv only clears the command's).
	cmd.Env = []string{}
	return cmd, nil, nil
}

// launch starts cmd in a session of its own, with pipes for its output, and puts the
// run in its cgroups before it goes on: bwrap's sandbox process held on --block-fd
// (direct, h), or the helper held at its gate.
func launch(ctx context.Context, cmd *exec.Cmd, h *hold, stdin io.Reader, lv Level, cg cgroups) (*Process, error) {
	var g *gatePipes
	closeAll := func(fs ...*os.File) {
		for _, f := range fs {
			f.Close()
		}
		g.closeChildEnds()
		g.close()
		h.closeChildEnds()
		h.close()
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(outR, outW)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, outW, errW
	cmd.WaitDelay = time.Second
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if h == nil && cg.any() {
		if g, err = newGate(cmd); err != nil {
			closeAll(outR, outW, errR, errW)
			return nil, err
		}
	}
	err = cmd.Start()
	outW.Close()
	errW.Close()
	g.closeChildEnds()
	h.closeChildEnds()
	if err != nil {
		outR.Close()
		errR.Close()
		g.close()
		h.close()
		return nil, fmt.Errorf("start the sandbox: %w", err)
	}
	p := newProcess(cmd, lv, cg, outR, errR)
	switch {
	case h != nil:
		err = h.release(ctx, cg, cmd.Process.Pid)
	case g != nil:
		err = g.open(ctx, cg, cmd.Process.Pid)
	}
	if err != nil {
		p.Kill()
		_, _ = p.Wait()
		return nil, err
	}
	go p.watch(ctx)
	return p, nil
}

// gatePipes hold the helper before it applies the policy: it says it is ready on a Unix
// socket with its credentials, which the kernel translates into Cairn's pid namespace
// (so its pid is known under bwrap's without a scan of /proc); Cairn moves it into the
// cgroups and opens the gate.
//
// Moving a process into a cgroup first waits for an RCU grace period (5 to 20 ms on a
// small VM), which the kernel skips for a move that follows another within about one
// period. So Cairn moves the process it started (the helper, or bwrap) right away, while
// the helper's runtime starts and bubblewrap sets up the mounts, and the helper under
// bwrap is then moved at once. Only bwrap's own sandbox process may stay outside (it
// forks before it is moved), as before: it runs nothing of the command's.
type gatePipes struct {
	gateR, gateW   *os.File
	readyR, readyW *os.File
}

func newGate(cmd *exec.Cmd) (*gatePipes, error) {
	var g gatePipes
	var err error
	if g.gateR, g.gateW, err = os.Pipe(); err != nil {
		return nil, err
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err == nil {
		err = syscall.SetsockoptInt(fds[0], syscall.SOL_SOCKET, syscall.SO_PASSCRED, 1)
	}
	if err != nil {
		g.gateR.Close()
		g.gateW.Close()
		return nil, err
	}
	g.readyR, g.readyW = os.NewFile(uintptr(fds[0]), "ready"), os.NewFile(uintptr(fds[1]), "ready-child")
	cmd.ExtraFiles = []*os.File{g.gateR, g.readyW} // fds 3 and 4
	return &g, nil
}

func (g *gatePipes) closeChildEnds() {
	if g != nil {
		g.gateR.Close()
		g.readyW.Close()
	}
}

func (g *gatePipes) close() {
	if g != nil {
		g.gateW.Close()
		g.readyR.Close()
	}
}

// readyPid waits for the helper's message and returns its pid as Cairn sees it.
func (g *gatePipes) readyPid() (int, error) {
	raw, err := g.readyR.SyscallConn()
	if err != nil {
		return 0, err
	}
	var pid int
	var rerr error
	err = raw.Read(func(fd uintptr) bool {
		buf, oob := make([]byte, 1), make([]byte, syscall.CmsgSpace(syscall.SizeofUcred))
		_, oobn, _, _, err := syscall.Recvmsg(int(fd), buf, oob, 0)
		if err == syscall.EAGAIN {
			return false
		}
		rerr = err
		if err == nil {
			pid, rerr = credPid(oob[:oobn])
		}
		return true
	})
	if err != nil {
		return 0, err
	}
	return pid, rerr
}

func credPid(oob []byte) (int, error) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil || len(msgs) == 0 {
		return 0, errors.New("the sandbox helper sent no credentials")
	}
	cred, err := syscall.ParseUnixCredentials(&msgs[0])
	if err != nil {
		return 0, err
	}
	return int(cred.Pid), nil
}

// open moves the process Cairn started into the cgroups at once (see gatePipes), waits
// for the helper to be ready, moves it too when it is another process (under bwrap),
// and lets it go on.
func (g *gatePipes) open(ctx context.Context, cg cgroups, started int) error {
	defer g.close()
	early := make(chan error, 1)
	go func() { early <- cg.join(started) }()
	type ready struct {
		pid int
		err error
	}
	rc := make(chan ready, 1)
	go func() { pid, err := g.readyPid(); rc <- ready{pid, err} }()
	t := time.NewTimer(30 * time.Second)
	defer t.Stop()
	var r ready
	select {
	case r = <-rc:
		if r.err != nil || r.pid <= 0 {
			return errors.New("the sandbox helper did not start (see its error output)")
		}
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return errors.New("the sandbox helper did not start in time")
	}
	err := <-early
	if err == nil && r.pid != started {
		err = cg.join(r.pid)
	}
	if err != nil {
		return fmt.Errorf("put the sandbox in its cgroup: %w", err)
	}
	_, err = g.gateW.Write([]byte{1})
	return err
}
