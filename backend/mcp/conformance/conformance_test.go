// Package conformance runs the official MCP client conformance suite against Cairn's MCP
// client (run.sh, cmd/cairn-mcp-conformance) and compares it with go-sdk's reference
// client in the same run.
package conformance

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// minPassed is the goal: at least the 282 of 289 checks go-sdk's reference client
// passes with conformance 0.1.16 (a check is counted per request it judges). In distinct
// check ids that is 197 of 204 (minDistinctPassed).
const (
	minPassed         = 282
	minDistinctPassed = 197
)

type check struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Count  int    `json:"count"`
}

type scenario struct {
	Name     string  `json:"name"`
	Passed   int     `json:"passed"`
	Failed   int     `json:"failed"`
	Warnings int     `json:"warnings"`
	OK       bool    `json:"ok"`
	Checks   []check `json:"checks"`
}

type summary struct {
	Scenarios []scenario `json:"scenarios"`
	Totals    struct {
		Passed, Failed, Warnings       int
		DistinctPassed, DistinctFailed int
		ScenariosPassed                int
	} `json:"totals"`
	Unexpected []string `json:"unexpected"`
	Stale      []string `json:"stale"`
}

func readSummary(t *testing.T, path string) summary {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(s.Scenarios) == 0 {
		t.Fatalf("%s: no scenarios", path)
	}
	return s
}

// TestOfficialClientConformance runs every client scenario of the pinned suite against
// Cairn's client and go-sdk's reference client (run.sh; the raw report stays in
// test-output/conformance). Cairn must fail no scenario outside baseline.yml, pass every
// scenario and every check id the reference passes, and at least minPassed checks
// (minDistinctPassed distinct ones).
func TestOfficialClientConformance(t *testing.T) {
	for _, tool := range []string{"go", "node", "npm", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is required for the conformance suite (make deps installs the test dependencies): %v", tool, err)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "test-output", "conformance")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "run.sh")
	cmd.Env = append(os.Environ(), "CONFORMANCE_OUT="+out)
	start := time.Now()
	output, err := cmd.CombinedOutput()
	t.Logf("run.sh (%s):\n%s", time.Since(start).Round(time.Millisecond), output)
	if err != nil {
		t.Fatalf("run.sh: %v (raw report in %s)", err, out)
	}

	cairn := readSummary(t, filepath.Join(out, "cairn", "summary.json"))
	ref := readSummary(t, filepath.Join(out, "go-sdk", "summary.json"))
	if len(cairn.Unexpected) > 0 || len(cairn.Stale) > 0 {
		t.Errorf("unexpected failures %v, stale baseline entries %v", cairn.Unexpected, cairn.Stale)
	}
	t.Logf("checks: Cairn %d passed, %d failed; go-sdk reference %d passed, %d failed",
		cairn.Totals.Passed, cairn.Totals.Failed, ref.Totals.Passed, ref.Totals.Failed)
	t.Logf("distinct check ids: Cairn %d passed, %d failed; go-sdk reference %d passed, %d failed",
		cairn.Totals.DistinctPassed, cairn.Totals.DistinctFailed, ref.Totals.DistinctPassed, ref.Totals.DistinctFailed)
	if cairn.Totals.Passed < minPassed || cairn.Totals.Passed < ref.Totals.Passed {
		t.Errorf("Cairn passes %d checks, want at least %d and the reference client's %d", cairn.Totals.Passed, minPassed, ref.Totals.Passed)
	}
	if cairn.Totals.DistinctPassed < minDistinctPassed {
		t.Errorf("Cairn passes %d distinct checks, want at least %d", cairn.Totals.DistinctPassed, minDistinctPassed)
	}
	if cairn.Totals.DistinctPassed < ref.Totals.DistinctPassed {
		t.Errorf("Cairn passes %d distinct checks, the go-sdk reference client %d", cairn.Totals.DistinctPassed, ref.Totals.DistinctPassed)
	}

	byName := map[string]scenario{}
	for _, s := range cairn.Scenarios {
		byName[s.Name] = s
	}
	for _, r := range ref.Scenarios {
		c, ok := byName[r.Name]
		if !ok {
			t.Errorf("%s: no result for Cairn", r.Name)
			continue
		}
		if r.OK && !c.OK {
			t.Errorf("%s: the reference client passes, Cairn has %d failed and %d warnings", r.Name, c.Failed, c.Warnings)
		}
		status := map[string]string{}
		for _, ch := range c.Checks {
			status[ch.ID] = ch.Status
		}
		for _, ch := range r.Checks {
			if ch.Status == "SUCCESS" && status[ch.ID] != "SUCCESS" {
				t.Errorf("%s: check %s passes for the reference client, for Cairn it is %q", r.Name, ch.ID, status[ch.ID])
			}
		}
	}
}
