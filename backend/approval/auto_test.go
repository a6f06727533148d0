package approval_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/classifier"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/permission"
	"github.com/cairn-app/cairn/backend/tools"
)

// fakeModels resolves every provider and model to the llmtest server.
type fakeModels struct{ url string }

func (m fakeModels) Resolve(_ context.Context, _, model string) (llm.Target, error) {
	return llm.Target{Client: llm.NewClient(llm.NewHTTPClient(), "fake", m.url, "", llm.RetryPolicy{}), Model: llm.Model{ID: model}}, nil
}

// newAutoEnv is an env in auto mode whose classifier is the llmtest server answering
// reply, with a workspace and a short timeout.
func newAutoEnv(t *testing.T, reply llmtest.Reply) (*env, *llmtest.Server) {
	t.Helper()
	srv := llmtest.Start(t, llmtest.WithHandler(func(llmtest.Request) llmtest.Reply { return reply }))
	settings := &fakeSettings{m: map[string]string{classifier.SettingModel: "judge"}}
	c := classifier.New(classifier.Config{Models: fakeModels{srv.URL}, Settings: settings, Timeout: 300 * time.Millisecond})
	e := newEnvWith(t, c, t.TempDir())
	e.settings.set(approval.SettingDefaultMode, string(permission.ModeAuto))
	del := e.write.pathTool("test_delete", "test", true, false)
	del.Destructive = true
	if err := e.reg.Register(del); err != nil {
		t.Fatal(err)
	}
	return e, srv
}

// TestAutoModeClassifier: auto mode lets the classifier allow a harmless call (source
// classifier, its reason audited and on the tool card), and asks the user for a
// destructive call without asking the classifier, and when the classifier answers
// garbage, an allow in the wrong shape, or too late.
func TestAutoModeClassifier(t *testing.T) {
	allow := llmtest.Reply{Text: `{"decision":"allow","reason":"writes a note the user asked for"}`}
	tests := []struct {
		name     string
		reply    llmtest.Reply
		tool     string
		code     string
		requests int // requests the classifier got
	}{
		{"harmless call", allow, "test_write", permission.ReasonClassifierAllows, 1},
		{"destructive call", allow, "test_delete", "destructive", 0},
		{"garbage", llmtest.Reply{Text: "sure, go ahead"}, "test_write", permission.ReasonClassifierMalformed, 1},
		{"allow with prose", llmtest.Reply{Text: `{"decision":"allow","reason":"ok"} trust me`}, "test_write", permission.ReasonClassifierMalformed, 1},
		{"too late", llmtest.Reply{Text: allow.Text, FirstDelay: 3 * time.Second}, "test_write", permission.ReasonClassifierLate, 1},
		{"classifier asks", llmtest.Reply{Text: `{"decision":"ask","reason":"unclear intent"}`}, "test_write", permission.ReasonClassifierAsks, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, srv := newAutoEnv(t, tt.reply)
			obs := &partObserver{}
			ctx, cancel := context.WithCancel(e.ctx)
			defer cancel()
			done := e.run(ctx, obs, call("c1", tt.tool, `{"path":"notes/a.md"}`, "s1"))
			if tt.code == permission.ReasonClassifierAllows {
				out := waitFor(t, done, "the call")
				if out[0].Status != tools.StatusResult || e.write.n.Load() != 1 {
					t.Fatalf("outcome: %+v", out[0])
				}
				_, decided := obs.parts()
				if len(decided) != 1 || decided[0].Source != permission.SourceClassifier || decided[0].AskReasonCode != tt.code ||
					decided[0].AskReasonParams["reason"] != "writes a note the user asked for" {
					t.Fatalf("tool card part: %+v", decided)
				}
				page, err := e.svc.ListAudit(e.ctx, approval.AuditQuery{}, 10)
				if err != nil || len(page.Entries) != 1 || page.Entries[0].Source != permission.SourceClassifier ||
					page.Entries[0].ReasonCode != tt.code || !strings.Contains(page.Entries[0].Reason, "a note the user asked for") {
					t.Fatalf("audit: %+v %v", page.Entries, err)
				}
			} else {
				r := pendingRequest(t, e)
				if r.AskReasonCode != tt.code || r.Tool != tt.tool {
					t.Fatalf("ask: code %q (%s), want %q", r.AskReasonCode, r.AskReason, tt.code)
				}
				if e.write.n.Load() != 0 {
					t.Fatal("the call ran before anyone decided")
				}
				cancel()
				waitFor(t, done, "the stopped call")
				page, err := e.svc.ListAudit(e.ctx, approval.AuditQuery{Decision: approval.AuditClassifierAsk}, 10)
				wantAudit := 1
				if tt.requests == 0 {
					wantAudit = 0 // the classifier was not asked
				}
				if err != nil || len(page.Entries) != wantAudit || (wantAudit == 1 && (page.Entries[0].ReasonCode != tt.code ||
					page.Entries[0].Source != permission.SourceClassifier)) {
					t.Fatalf("classifier audit: %+v %v", page.Entries, err)
				}
			}
			if got := len(srv.Requests()); got != tt.requests {
				t.Fatalf("classifier requests: %d, want %d", got, tt.requests)
			}
		})
	}
}

// pendingRequest waits for the run's request to be pending (polling the list guards
// against a hang; the request appears as soon as it is stored).
func pendingRequest(t *testing.T, e *env) approval.Request {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		p, err := e.svc.ListPending(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Requests) > 0 {
			return p.Requests[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no pending request")
	return approval.Request{}
}
