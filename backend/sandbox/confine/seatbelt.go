package confine

import (
	"fmt"
	"strings"
)

// seatbeltProfile is the macOS sandbox-exec profile of a run: deny by default; the
// system's libraries, tools and settings readable; the workspace, the run's temporary
// and home folders writable; the extra read-only paths readable; the hidden paths (the
// data directory, the home folder's keys, …) denied even where a broader rule would
// allow them (a later rule wins in SBPL); the protected paths inside the workspace
// read-only; the network off, DNS included (no mDNSResponder lookup). It is a pure
// function so its text is tested on every system; only macOS runs it.
func seatbeltProfile(l layout, hidden []string) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(deny default)\n")
	b.WriteString("(allow process-exec process-fork signal (target same-sandbox))\n")
	b.WriteString("(allow sysctl-read mach-lookup (global-name \"com.apple.system.logger\"))\n")
	b.WriteString("(allow file-read-metadata)\n")
	b.WriteString("(allow file-read*\n")
	for _, p := range []string{"/usr", "/bin", "/sbin", "/System", "/Library", "/opt/homebrew", "/usr/local", "/private/etc", "/etc", "/dev", "/private/var/db/timezone"} {
		fmt.Fprintf(&b, "  (subpath %s)\n", sbplString(p))
	}
	for _, p := range l.readOnly {
		fmt.Fprintf(&b, "  (subpath %s)\n", sbplString(p))
	}
	fmt.Fprintf(&b, "  (literal %s))\n", sbplString(l.exe))
	b.WriteString("(allow file-read* file-write*\n")
	for _, p := range append([]string{l.pol.Workspace, l.tmp, l.home}, l.readWrite...) {
		fmt.Fprintf(&b, "  (subpath %s)\n", sbplString(p))
	}
	b.WriteString("  (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/tty\") (regex #\"^/dev/fd/\"))\n")
	if len(l.protected) > 0 {
		b.WriteString("(deny file-write*\n")
		for _, p := range l.protected {
			fmt.Fprintf(&b, "  (subpath %s)\n", sbplString(p))
		}
		b.WriteString(")\n")
	}
	b.WriteString("(deny file-read* file-write*\n")
	for _, p := range hidden {
		fmt.Fprintf(&b, "  (subpath %s)\n", sbplString(p))
	}
	b.WriteString(")\n(deny network*)\n")
	return b.String()
}

// sbplString quotes s for SBPL: a path with a quote, a backslash or a newline stays one
// string and cannot close it to add rules.
func sbplString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
