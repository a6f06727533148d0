package tools_test

import (
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
)

func TestStopped(t *testing.T) {
	limit := apperr.New(apperr.MaxRoundsReached, "the limit of 3 tool rounds was reached").WithParam("rounds", 3)
	tests := []struct {
		name     string
		why      *apperr.Error
		code     apperr.Code
		contains string
	}{
		{"by the user", nil, apperr.ToolStopped, "web_search was stopped by the user"},
		{"by the round limit", limit, apperr.MaxRoundsReached, "web_search was not run: the limit of 3 tool rounds was reached."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tools.Stopped("c1", "web_search", tt.why)
			if o.CallID != "c1" || o.Name != "web_search" || o.Status != tools.StatusStopped || o.Err == nil ||
				o.Err.Code != tt.code || o.Err.Params["name"] != "web_search" || !strings.Contains(o.Content, tt.contains) {
				t.Fatalf("Stopped = %+v (err %+v)", o, o.Err)
			}
		})
	}
	if _, ok := limit.Params["name"]; ok {
		t.Fatal("Stopped changed the reason it was given")
	}
}
