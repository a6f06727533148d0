//go:build linux

package confine

import "fmt"

// describe turns the probe into what holds at level lv, and why anything is missing.
func describe(pr probeResult, lv Level) Status {
	st := Status{Level: lv, Reasons: append([]string(nil), pr.reasons...)}
	landlock := "Landlock is not available"
	if pr.landlockAvailable > 0 {
		landlock = fmt.Sprintf("Landlock ABI %d", pr.landlockAvailable)
	}
	procs := "the process tree is killed through its session"
	limits := Aspect{Holds: true, Detail: "CPU time, memory, file size and open files are limited per process"}
	if pr.cgroupPids {
		limits.Detail += "; the number of processes is limited for the whole tree (pids cgroup)"
	} else {
		limits.Holds = false
		limits.Detail += "; the number of processes is limited only by RLIMIT_NPROC (no pids cgroup, and it does not apply to root)"
	}
	if pr.cgAny {
		procs += " and its cgroup, wherever a process moved"
	}
	switch lv {
	case Strong:
		st.Reads = Aspect{true, "only system folders (without /etc's secrets), the workspace and allowed folders are mounted; " + landlock + " as a second wall"}
		st.Writes = Aspect{true, "only the workspace, a private /tmp and a private home; protected paths (.git/hooks, .git/config, editor and MCP configs, shell start-up files) are read-only and cannot be created"}
		st.Network = Aspect{true, "own network namespace with no interfaces, DNS included; seccomp allows only Unix sockets"}
		st.Processes = Aspect{true, "own pid namespace (nothing survives bwrap), no capabilities, seccomp denies ptrace, io_uring, bpf, mount and new namespaces; " + procs}
	case Reduced:
		st.Reads = Aspect{true, landlock + ": only system folders (without /etc's secrets), the workspace, allowed folders and private home and temporary folders are readable"}
		st.Writes = Aspect{false, "only the workspace and the private folders are writable, but inside the workspace the protected paths stay writable for commands (Landlock cannot carve them out)"}
		st.Network = Aspect{true, "seccomp denies every socket, Unix ones included; Landlock denies TCP"}
		st.Processes = Aspect{pr.cgAny, "no pid namespace: " + procs + "; seccomp denies ptrace, io_uring, bpf, mount and new namespaces"}
		if !pr.cgAny {
			st.Processes.Detail += "; without a cgroup a child that left the session after its parent exited may survive"
		}
	default:
		off := Aspect{false, "no sandbox: the command runs with Cairn's own rights"}
		st.Reads, st.Writes, st.Network, st.Processes = off, off, off, off
		limits = off
	}
	st.Limits = limits
	return st
}
