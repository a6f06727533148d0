// Command helloserve is the serve + Chromium baseline of bench/startup.sh: the Wails
// hello-world's built frontend served by the smallest Go HTTP server, so the baseline
// also pays for spawning a Go process and printing a URL, as `cairn serve` does. The
// page gets a one-line shim for the Wails bridge whose Ready() sets body[data-ready="1"].
package main

import (
	"bytes"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
)

const shim = `<script>window.go={main:{App:{` +
	`Ready:()=>{document.body.dataset.ready='1';return Promise.resolve()},` +
	`Greet:(n)=>Promise.resolve('Hello '+n+', It\'s show time!')}}};</script>`

func main() {
	dir := flag.String("dir", "", "the hello-world's frontend/dist")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "helloserve:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		return err
	}
	index = bytes.Replace(index, []byte("<head>"), []byte("<head>"+shim), 1)
	files := http.FileServer(http.Dir(dir))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("Serving at http://%s/\n", ln.Addr())
	return http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" || r.URL.Path == "/index.html" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(index)
			return
		}
		files.ServeHTTP(w, r)
	}))
}
