//go:build unix

package chat

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	openai "github.com/sashabaranov/go-openai"
)

// benchTarget returns the base URL and provider the benchmarks talk to: the in-process
// llmtest server, or the fakeopenai process named by CAIRN_BENCH_OPENAI_URL (bench/chat.sh
// uses that so CPU figures exclude the fake provider).
func benchTarget(b *testing.B, h *harness) (string, string) {
	url := os.Getenv("CAIRN_BENCH_OPENAI_URL")
	if url == "" {
		h.srv.Handle(llmtest.Auto)
		return h.srv.URL, h.provider.ID
	}
	p, err := h.providers.Save(context.Background(), llm.ProviderInput{Name: "External", BaseURL: url, DefaultModel: "fake-echo"})
	if err != nil {
		b.Fatal(err)
	}
	return url, p.ID
}

func percentile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(float64(len(s)-1)*q)]
}

// BenchmarkTTFT compares time to first token of a raw go-openai stream with Cairn's path
// to a window: SendMessage (stores both messages, loads history) → stream → first text
// part stored in SQLite and received by a bus subscriber. Each send uses a fresh session.
func BenchmarkTTFT(b *testing.B) {
	h := newHarness(b, nil)
	url, providerID := benchTarget(b, h)
	ctx := context.Background()
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = url
	cfg.HTTPClient = h.providers.HTTPClient()
	raw := openai.NewClientWithConfig(cfg)
	rawReq := openai.ChatCompletionRequest{Model: "fake-tokens", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "16"}}}
	rawOnce := func() time.Duration {
		start := time.Now()
		st, err := raw.CreateChatCompletionStream(ctx, rawReq)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		for {
			r, err := st.Recv()
			if err != nil {
				b.Fatal(err)
			}
			if len(r.Choices) > 0 && r.Choices[0].Delta.Content != "" {
				d := time.Since(start)
				for {
					if _, err := st.Recv(); errors.Is(err, io.EOF) || err != nil {
						return d
					}
				}
			}
		}
	}
	sub := h.bus.Subscribe(1 << 14)
	defer sub.Close()
	cairnOnce := func() time.Duration {
		sess, err := h.svc.CreateSession(ctx, SessionInput{ProviderID: providerID, Model: "fake-tokens"})
		if err != nil {
			b.Fatal(err)
		}
		topic := events.SessionTopic(sess.ID)
		start := time.Now()
		if _, err := h.svc.SendMessage(ctx, sess.ID, "16"); err != nil {
			b.Fatal(err)
		}
		var d time.Duration
		for ev := range sub.C {
			if ev.Topic != topic {
				continue
			}
			if ev.Type == EventPartAppended && d == 0 {
				var p Part
				_ = json.Unmarshal(ev.Data, &p)
				if p.Type == PartText && p.Text != "" {
					d = time.Since(start)
				}
			}
			if ev.Type == EventSessionState {
				var sc StateChange
				_ = json.Unmarshal(ev.Data, &sc)
				if sc.State == StateIdle {
					break
				}
			}
		}
		return d
	}
	for i := 0; i < 5; i++ { // warm connections and caches
		rawOnce()
		cairnOnce()
	}
	var raws, cairns []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		raws = append(raws, rawOnce())
		cairns = append(cairns, cairnOnce())
	}
	b.StopTimer()
	rp50, cp50 := percentile(raws, 0.5), percentile(cairns, 0.5)
	b.ReportMetric(float64(rp50.Microseconds()), "raw-p50-µs")
	b.ReportMetric(float64(cp50.Microseconds()), "cairn-p50-µs")
	b.ReportMetric(float64((cp50 - rp50).Microseconds()), "overhead-p50-µs")
	b.ReportMetric(float64((percentile(cairns, 0.9) - percentile(raws, 0.9)).Microseconds()), "overhead-p90-µs")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStreamThroughput streams one long answer per iteration (BENCH_TOKENS tokens,
// default 20000, one token per SSE chunk, no delay) with parts persisted and a subscriber
// applying every event like a window. It reports tokens/s from the first to the last
// event and the process CPU per token.
func BenchmarkStreamThroughput(b *testing.B) {
	tokens := 20000
	if v, err := strconv.Atoi(os.Getenv("BENCH_TOKENS")); err == nil && v > 0 {
		tokens = v
	}
	h := newHarness(b, nil)
	_, providerID := benchTarget(b, h)
	ctx := context.Background()
	sub := h.bus.Subscribe(1 << 16)
	defer sub.Close()
	var total time.Duration
	var cpu time.Duration
	var events int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sess, err := h.svc.CreateSession(ctx, SessionInput{ProviderID: providerID, Model: "fake-tokens"})
		if err != nil {
			b.Fatal(err)
		}
		w := &window{}
		snap, _ := h.svc.GetSession(ctx, sess.ID)
		w.load(snap)
		topic := "session:" + sess.ID
		cpu0 := cpuTime()
		if _, err := h.svc.SendMessage(ctx, sess.ID, strconv.Itoa(tokens)); err != nil {
			b.Fatal(err)
		}
		var first, lastEv time.Time
	loop:
		for ev := range sub.C {
			if ev.Topic != topic {
				continue
			}
			events++
			if err := w.apply(ev); err != nil {
				b.Fatal(err)
			}
			if ev.Type == EventPartAppended && first.IsZero() {
				first = time.Now()
			}
			if ev.Type == EventMessageUpdated {
				lastEv = time.Now()
			}
			if ev.Type == EventSessionState && w.state == StateIdle {
				break loop
			}
		}
		cpu += cpuTime() - cpu0
		total += lastEv.Sub(first)
		if got := len(w.msgs[1].Parts[0].Text); got != tokens*4 {
			b.Fatalf("window got %d bytes, want %d", got, tokens*4)
		}
	}
	b.StopTimer()
	n := float64(tokens * b.N)
	b.ReportMetric(n/total.Seconds(), "tokens/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/token")
	b.ReportMetric(float64(events)/float64(b.N), "events/answer")
}
