// Command webfetch is the fetcher's benchmark (bench/webfetch.sh): Cairn's
// fetch-to-Markdown and the peers' pipeline (jsdom + @mozilla/readability + turndown, in
// Node) on the same generated pages, one page after the other, each side for the same
// time; pages per second and how much of the same text both kept.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/cairn-app/cairn/backend/netguard"
	"github.com/cairn-app/cairn/backend/webfetch"
	"github.com/cairn-app/cairn/backend/webfetch/benchpages"
)

type peerResult struct {
	Pages    int     `json:"pages"`
	Seconds  float64 `json:"seconds"`
	Markdown string  `json:"markdown"`
}

func main() {
	seconds := flag.Float64("seconds", 5, "time each side spends on each page")
	peer := flag.String("peer", "bench/webfetch/peer.mjs", "the peers' pipeline script")
	modules := flag.String("modules", "bench/.webfetch-node", "folder whose node_modules hold the peers' packages")
	flag.Parse()
	if err := run(*seconds, *peer, *modules); err != nil {
		fmt.Fprintln(os.Stderr, "webfetch bench:", err)
		os.Exit(1)
	}
}

func run(seconds float64, peer, modules string) error {
	dir, err := os.MkdirTemp("", "webfetch-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	pages := benchpages.All()
	base, stop := serve(pages)
	defer stop()
	dialer := loopbackDialer(base)
	// The comparison converts whole pages, as the peers do; "cut" is Cairn as it runs,
	// keeping the first 40,000 characters.
	full := webfetch.New(webfetch.Options{Dialer: dialer, NoBrowser: true, MaxChars: 1 << 30})
	cut := webfetch.New(webfetch.Options{Dialer: dialer, NoBrowser: true})
	fmt.Println("| page | size | Cairn pages/s | peers pages/s | Cairn ÷ peers | Cairn as it runs (cut at 40k) pages/s | text overlap | main text kept: Cairn / peers | verdict |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	failed := false
	for _, p := range pages {
		if err := os.WriteFile(filepath.Join(dir, p.Name+".html"), []byte(p.HTML), 0o600); err != nil {
			return err
		}
		u := fmt.Sprintf("http://bench.example:%d/%s", base.Port(), p.Name)
		// Rounds alternate the sides, so that a change in the machine's load falls on
		// both; each figure is the median of its rounds.
		var goRates, cutRates, peerRates []float64
		var goMD string
		var pr peerResult
		for r := 0; r < rounds; r++ {
			rate, md, err := timeGo(full, u, seconds/float64(rounds))
			if err != nil {
				return err
			}
			goRates, goMD = append(goRates, rate), md
			if pr, err = timePeer(peer, modules, dir, p.Name, seconds/float64(rounds)); err != nil {
				return err
			}
			peerRates = append(peerRates, float64(pr.Pages)/pr.Seconds)
			if rate, _, err = timeGo(cut, u, seconds/float64(rounds)); err != nil {
				return err
			}
			cutRates = append(cutRates, rate)
		}
		goRate, cutRate, peerRate := median(goRates), median(cutRates), median(peerRates)
		ratio := goRate / peerRate
		verdict := "goal ≥ 2×: met"
		if ratio < 2 {
			verdict, failed = "goal ≥ 2×: MISSED", true
		}
		fmt.Printf("| %s | %s | %.2f | %.2f | %.1f× | %.2f | %.1f%% | %.1f%% / %.1f%% | %s |\n", p.Name, size(len(p.HTML)),
			goRate, peerRate, ratio, cutRate, 100*dice(words(goMD), words(pr.Markdown)),
			100*recall(words(p.Main), words(goMD)), 100*recall(words(p.Main), words(pr.Markdown)), verdict)
	}
	if failed {
		return errors.New("a goal was missed")
	}
	return nil
}

// rounds is how many times each side runs on each page.
const rounds = 3

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func size(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// serve answers each page at /<name> on loopback.
func serve(pages []benchpages.Page) (netip.AddrPort, func()) {
	mux := http.NewServeMux()
	for _, p := range pages {
		body := []byte(p.HTML)
		mux.HandleFunc("/"+p.Name, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(body)
		})
	}
	ts := httptest.NewServer(mux)
	return netip.MustParseAddrPort(ts.Listener.Addr().String()), ts.Close
}

// publicIP stands in for the bench server: the guard checks it as usual, and the dialer
// connects it to the loopback server, and nothing else anywhere.
const publicIP = "93.184.215.14"

type resolver struct{}

func (resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if host != "bench.example" {
		return nil, errors.New("no such host")
	}
	return []netip.Addr{netip.MustParseAddr(publicIP)}, nil
}

func loopbackDialer(server netip.AddrPort) *netguard.Dialer {
	stand := net.JoinHostPort(publicIP, fmt.Sprint(server.Port()))
	return &netguard.Dialer{Resolver: resolver{}, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		if address != stand {
			return nil, errors.New("bench dialer: only the bench server")
		}
		var d net.Dialer
		return d.DialContext(ctx, network, server.String())
	}}
}

func timeGo(f *webfetch.Fetcher, u string, seconds float64) (float64, string, error) {
	p, err := f.Fetch(context.Background(), u) // warm-up
	if err != nil {
		return 0, "", err
	}
	budget := time.Duration(seconds * float64(time.Second))
	start := time.Now()
	n := 0
	for n < 2 || time.Since(start) < budget {
		if p, err = f.Fetch(context.Background(), u); err != nil {
			return 0, "", err
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), p.Markdown, nil
}

func timePeer(script, modules, dir, name string, seconds float64) (peerResult, error) {
	abs, err := filepath.Abs(modules)
	if err != nil {
		return peerResult{}, err
	}
	cmd := exec.Command("node", script, dir, fmt.Sprint(seconds), name)
	cmd.Env = append(os.Environ(), "PEER_MODULES="+abs)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return peerResult{}, fmt.Errorf("peer pipeline: %w", err)
	}
	var res map[string]peerResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return peerResult{}, fmt.Errorf("peer pipeline output: %w", err)
	}
	r, ok := res[name]
	if !ok || r.Seconds <= 0 {
		return peerResult{}, fmt.Errorf("peer pipeline: no result for %s", name)
	}
	return r, nil
}

var linkTarget = regexp.MustCompile(`\]\([^)]*\)`)

// words are the lower-case words and numbers of a text, counted; link targets are left
// out (both sides make them absolute, each its own way).
func words(s string) map[string]int {
	s = linkTarget.ReplaceAllString(s, "]")
	out := map[string]int{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		out[w]++
	}
	return out
}

func common(a, b map[string]int) (n int) {
	for w, ca := range a {
		n += min(ca, b[w])
	}
	return n
}

func total(a map[string]int) (n int) {
	for _, c := range a {
		n += c
	}
	return n
}

// dice is the share of words the two texts have in common (2·|A∩B| / (|A|+|B|)).
func dice(a, b map[string]int) float64 {
	if total(a)+total(b) == 0 {
		return 1
	}
	return 2 * float64(common(a, b)) / float64(total(a)+total(b))
}

// recall is the share of main's words out kept.
func recall(main, out map[string]int) float64 {
	if total(main) == 0 {
		return 1
	}
	return float64(common(main, out)) / float64(total(main))
}
