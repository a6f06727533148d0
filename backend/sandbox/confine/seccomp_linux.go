//go:build linux

package confine

import (
	seccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/sys/unix"
)

// deniedSyscalls fail with EPERM inside the sandbox: tracing and reading other processes,
// the kernel's side doors (io_uring, which bypasses seccomp for the calls it makes; bpf;
// keyrings; perf), and everything that changes namespaces or mounts.
var deniedSyscalls = []string{
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"bpf", "perf_event_open", "userfaultfd",
	"keyctl", "add_key", "request_key",
	"mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	"unshare", "setns",
	"open_by_handle_at", "name_to_handle_at",
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"reboot", "swapon", "swapoff", "acct", "quotactl", "syslog", "iopl", "ioperm", "uselib", "vhangup",
}

// newNamespaces are the clone flags that would make a namespace.
const newNamespaces = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWNET | unix.CLONE_NEWPID |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME

// filterPolicy is the seccomp policy: allow by default, deny the list above, every
// socket but AF_UNIX (all of them unless unix; IP ones too with inet, only ever given
// inside a network namespace of its own), clone with namespace flags, clone3
// (ENOSYS, so libc falls back to clone, whose flags can be checked) and terminal
// injection (TIOCSTI, TIOCLINUX).
func filterPolicy(unix_, inet bool) seccomp.Policy {
	deny := seccomp.SyscallGroup{Action: seccomp.ActionErrno, Names: deniedSyscalls}
	notUnix := []seccomp.Condition{{Argument: 0, Operation: seccomp.NotEqual, Value: unix.AF_UNIX}}
	switch {
	case unix_ && inet:
		deny.NamesWithCondtions = append(deny.NamesWithCondtions, seccomp.NameWithConditions{Name: "socket", Conditions: []seccomp.Condition{
			notUnix[0], {Argument: 0, Operation: seccomp.NotEqual, Value: unix.AF_INET}, {Argument: 0, Operation: seccomp.NotEqual, Value: unix.AF_INET6}}})
	case unix_:
		deny.NamesWithCondtions = append(deny.NamesWithCondtions, seccomp.NameWithConditions{Name: "socket", Conditions: notUnix})
	default:
		deny.Names = append(deny.Names, "socket")
	}
	deny.NamesWithCondtions = append(deny.NamesWithCondtions,
		seccomp.NameWithConditions{Name: "socketpair", Conditions: notUnix},
		seccomp.NameWithConditions{Name: "clone", Conditions: []seccomp.Condition{{Argument: 0, Operation: seccomp.BitsSet, Value: newNamespaces}}},
		seccomp.NameWithConditions{Name: "ioctl", Conditions: []seccomp.Condition{{Argument: 1, Operation: seccomp.Equal, Value: unix.TIOCSTI}}},
		seccomp.NameWithConditions{Name: "ioctl", Conditions: []seccomp.Condition{{Argument: 1, Operation: seccomp.Equal, Value: unix.TIOCLINUX}}},
	)
	return seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			deny,
			{Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS), Names: []string{"clone3"}},
		},
	}
}

// loadSeccomp installs the filter on the calling thread (no_new_privs is already set).
func loadSeccomp(unixSockets, inet bool) error {
	return seccomp.LoadFilter(seccomp.Filter{NoNewPrivs: true, Policy: filterPolicy(unixSockets, inet)})
}
