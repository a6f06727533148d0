//go:build linux

package confine

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
)

const (
	fwdPort     = 3128
	insideProxy = "/run/cairn/proxy.sock"
)

// proxyURL is what HTTP_PROXY and HTTPS_PROXY say inside.
var proxyURL = "http://127.0.0.1:" + strconv.Itoa(fwdPort)

// forwardMain runs inside the sandbox (confined like the command): it accepts on the
// sandbox's own loopback and carries each connection to Cairn's proxy socket. It says
// "ok" on stdout once it listens.
func forwardMain() int {
	ln, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(fwdPort))
	if err != nil {
		fmt.Fprintln(os.Stderr, "cairn sandbox: proxy forwarder:", err)
		return 1
	}
	fmt.Println("ok")
	os.Stdout.Close()
	for {
		c, err := ln.Accept()
		if err != nil {
			return 1
		}
		go func() {
			defer c.Close()
			up, err := net.Dial("unix", insideProxy)
			if err != nil {
				return
			}
			defer up.Close()
			go func() { _, _ = io.Copy(up, c); closeWrite(up) }()
			_, _ = io.Copy(c, up)
		}()
	}
}

// startForwarder starts the forwarder from the confined helper thread (the child
// inherits its restrictions) and waits until it listens.
func startForwarder() error {
	cmd := exec.Command(insideExe, fwdArg)
	cmd.Env = []string{}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var b [3]byte
	if _, err := io.ReadFull(out, b[:]); err != nil || string(b[:2]) != "ok" {
		return fmt.Errorf("the proxy forwarder did not start")
	}
	return nil
}
