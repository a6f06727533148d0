package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkEcho compares, per transport against server-everything, one `echo` call
// through Cairn's whole path (registry lookup, schema validation, permission (allowed),
// MCP call, result mapping: Pipeline.RunBatch) with the same call on a raw go-sdk session
// (the two side by side in one sub-benchmark, calls alternating in blocks) and with the
// official TypeScript SDK client (testdata/npm/bench-ts.mjs, its own process). Run with
// -benchtime 1000x (bench/mcp.sh); it reports p50/p99 latency and calls/s per path.
func BenchmarkEcho(b *testing.B) {
	mcptest.NeedNPM(b)
	node, err := exec.LookPath("node")
	if err != nil {
		b.Fatal(err)
	}
	streamable := mcptest.StartEverythingHTTP(b, "streamableHttp")
	sse := mcptest.StartEverythingHTTP(b, "sse")
	transports := []struct {
		name string
		srv  Server
		raw  func() mcp.Transport
	}{
		{"stdio", Server{Name: "bench", Command: node, Args: []string{mcptest.Everything(), "stdio"}, Enabled: true},
			func() mcp.Transport {
				return &mcp.CommandTransport{Command: exec.Command(node, mcptest.Everything(), "stdio")}
			}},
		{"streamable-http", Server{Name: "bench", Transport: TransportHTTP, URL: streamable.URL, Enabled: true},
			func() mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: streamable.URL} }},
		{"sse", Server{Name: "bench", Transport: TransportSSE, URL: sse.URL, Enabled: true},
			func() mcp.Transport { return &mcp.SSEClientTransport{Endpoint: sse.URL} }},
	}
	for _, tr := range transports {
		b.Run("transport="+tr.name+"/path=ts-sdk", func(b *testing.B) {
			// The official TypeScript SDK client, same server, same calls.
			url := ""
			if tr.srv.Transport != TransportStdio {
				url = tr.srv.URL
			}
			cmd := exec.Command(node, filepath.Join(mcptest.Dir(), "bench-ts.mjs"), tr.name, url, strconv.Itoa(b.N))
			out, err := cmd.Output()
			if err != nil {
				b.Fatalf("bench-ts.mjs: %v %s", err, out)
			}
			var r struct {
				P50us, P99us, CallsPerSec float64
			}
			if err := json.Unmarshal(out, &r); err != nil {
				b.Fatalf("bench-ts.mjs said %q: %v", out, err)
			}
			b.ReportMetric(r.P50us, "p50-µs")
			b.ReportMetric(r.P99us, "p99-µs")
			b.ReportMetric(r.CallsPerSec, "calls/s")
		})
		b.Run("transport="+tr.name+"/path=interleaved", func(b *testing.B) {
			// Raw go-sdk and Cairn side by side: each on its own server process, both
			// connected for the whole run, calls alternating in blocks so that what else
			// the machine does falls on both alike.
			ctx := context.Background()
			c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
			cs, err := c.Connect(ctx, tr.raw(), &mcp.ClientSessionOptions{ProtocolVersion: LegacyProtocolVersion})
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			args := json.RawMessage(`{"message":"ping"}`)
			raw := func() error {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
				if err != nil {
					return err
				}
				if t, ok := res.Content[0].(*mcp.TextContent); !ok || t.Text != "Echo: ping" {
					return fmt.Errorf("result %+v", res.Content)
				}
				return nil
			}

			reg := tools.NewRegistry()
			m, err := New(ctx, Config{DB: mcptest.OpenDB(b), Bus: events.NewBus(), Registry: reg, DataDir: b.TempDir(), Options: Options{LoginShell: "-"}})
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			v, err := m.Save(ctx, tr.srv)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := m.RefreshTools(ctx, v.ID); err != nil {
				b.Fatal(err)
			}
			p := tools.NewPipeline(reg, tools.Options{DataDir: b.TempDir()})
			scope := tools.Scope{SessionID: "bench", Toolsets: []string{"mcp"}, Model: tools.ModelCaps{SupportsTools: true, ContextWindow: 128000}}
			name := tools.MCPName(v.ID, v.Name, "echo")
			call := []tools.Call{{ID: "c", Name: name, Arguments: `{"message":"ping"}`, SessionID: "bench", Scope: scope}}
			cairn := func() error {
				out := p.RunBatch(ctx, call, nil)
				if out[0].Status != tools.StatusResult || out[0].Content != "Echo: ping" {
					return fmt.Errorf("outcome %+v", out[0])
				}
				return nil
			}
			measureSideBySide(b, map[string]func() error{"raw": raw, "cairn": cairn}, []string{"raw", "cairn"})
		})
	}
}

// sideBlock is how many calls one path makes before the other takes its turn.
const sideBlock = 50

// measureSideBySide runs b.N calls of each path (after 200 warm-up calls each), in
// alternating blocks, and reports <path>-p50-µs, <path>-p99-µs and <path>-calls/s, where
// calls/s is the path's calls over the time its own calls took.
func measureSideBySide(b *testing.B, paths map[string]func() error, order []string) {
	for _, name := range order {
		for range 200 {
			if err := paths[name](); err != nil {
				b.Fatal(err)
			}
		}
	}
	lat := map[string][]time.Duration{}
	b.ResetTimer()
	for done := 0; done < b.N; done += sideBlock {
		n := min(sideBlock, b.N-done)
		for _, name := range order {
			for range n {
				t := time.Now()
				if err := paths[name](); err != nil {
					b.Fatal(err)
				}
				lat[name] = append(lat[name], time.Since(t))
			}
		}
	}
	b.StopTimer()
	for _, name := range order {
		l := lat[name]
		var total time.Duration
		for _, d := range l {
			total += d
		}
		slices.Sort(l)
		pct := func(p float64) float64 { return float64(l[min(len(l)-1, int(float64(len(l))*p))].Microseconds()) }
		b.ReportMetric(pct(0.50), name+"-p50-µs")
		b.ReportMetric(pct(0.99), name+"-p99-µs")
		b.ReportMetric(float64(len(l))/total.Seconds(), name+"-calls/s")
	}
}

// BenchmarkStartup measures New + Start (what Cairn's start-up waits for) with no server
// and with 20 configured servers of which 5 hang or exit at once: the warmer runs in the
// background, so the two must not differ measurably.
func BenchmarkStartup(b *testing.B) {
	for _, n := range []int{0, 20} {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) {
			db := mcptest.OpenDB(b)
			ctx := context.Background()
			seed, err := New(ctx, Config{DB: db, Options: Options{LoginShell: "-"}})
			if err != nil {
				b.Fatal(err)
			}
			for i := range n {
				s := Server{Name: fmt.Sprintf("s%d", i), Command: "sleep", Args: []string{"300"}, ConnectTimeoutMs: 60000}
				if i%4 == 0 {
					s = Server{Name: fmt.Sprintf("s%d", i), Command: "/bin/sh", Args: []string{"-c", "exit 1"}}
				}
				if i >= 5 {
					s = Server{Name: fmt.Sprintf("s%d", i), Command: "cat"} // alive, never answers: still no wait
				}
				s.Enabled = true
				if _, err := seed.Save(ctx, s); err != nil {
					b.Fatal(err)
				}
			}
			seed.Close()
			lat := make([]time.Duration, 0, b.N)
			for range b.N {
				t := time.Now()
				m, err := New(ctx, Config{DB: db, Registry: tools.NewRegistry(), Options: Options{LoginShell: "-", StopGrace: 50 * time.Millisecond}})
				if err != nil {
					b.Fatal(err)
				}
				m.Start()
				lat = append(lat, time.Since(t))
				b.StopTimer()
				m.Close()
				b.StartTimer()
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		})
	}
}
