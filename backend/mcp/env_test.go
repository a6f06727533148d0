package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestChildGetsOnlyTheDefaultEnvironment: a variable of Cairn's own environment outside
// the default set (a token, here CAIRN_TEST_SECRET) never reaches a real stdio server,
// while the default set and the server's own variables do; Environment names exactly
// what the process got, without values.
func TestChildGetsOnlyTheDefaultEnvironment(t *testing.T) {
	t.Setenv("CAIRN_TEST_SECRET", "leaked-if-you-see-this")
	t.Setenv("OPENAI_API_KEY", "sk-leaked-if-you-see-this")
	t.Setenv("LC_MESSAGES", "C")
	t.Setenv("https_proxy", "http://127.0.0.1:9")
	h := newHarness(t, cold)
	s := everything(t, "env")
	s.Env = []Var{{Name: "MY_API_KEY", Value: "k-123456789", Secret: true}, {Name: "PLAIN_SETTING", Value: "on"}}
	v := h.save(s)
	res, err := h.call(v.ID, "get-env", `{}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(res.Content), &got); err != nil {
		t.Fatalf("get-env: %v %.300s", err, res.Content)
	}
	for _, leaked := range []string{"CAIRN_TEST_SECRET", "OPENAI_API_KEY"} {
		if _, ok := got[leaked]; ok {
			t.Errorf("%s reached the server", leaked)
		}
	}
	if got["PLAIN_SETTING"] != "on" || got["MY_API_KEY"] != "k-123456789" || got["PATH"] == "" ||
		got["LC_MESSAGES"] != "C" || got["https_proxy"] != "http://127.0.0.1:9" {
		t.Errorf("the server's environment lacks what it should get: %v", got)
	}

	names, err := h.m.Environment(context.Background(), v.ID)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, n := range names {
		listed[n.Name] = n.Source
	}
	if listed["MY_API_KEY"] != EnvSecret || listed["PLAIN_SETTING"] != EnvConfig || listed["PATH"] != EnvInherited {
		t.Errorf("Environment: %v", names)
	}
	for name := range listed {
		if _, ok := got[name]; !ok {
			t.Errorf("Environment lists %s, which the process did not get", name)
		}
	}
	for name := range got {
		// node and npm add a few of their own at start-up.
		if _, ok := listed[name]; !ok && !slices.Contains([]string{"PWD", "SHLVL", "_"}, name) {
			t.Errorf("the process got %s, which Environment does not list", name)
		}
	}
	b, _ := json.Marshal(names)
	if strings.Contains(string(b), "k-123456789") || strings.Contains(string(b), "/usr") {
		t.Errorf("Environment carries values: %s", b)
	}
}
