package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
)

// `cairn mcp call` through the owner runs the call on the owner's connection (no second
// server process) and hears its progress as it comes: the answer is one JSON object a
// line, each a progress report, the last the result or the error.

// mcpCallRequest is the call a terminal asks the owner to make.
type mcpCallRequest struct {
	Server string          `json:"server"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
}

// mcpCallFrame is one line of the answer: a progress report, or the end.
type mcpCallFrame struct {
	Progress *tools.Progress `json:"progress,omitempty"`
	Done     bool            `json:"done,omitempty"`
	Result   *tools.Result   `json:"result,omitempty"`
	Error    *apperr.Error   `json:"error,omitempty"`
}

// serveMCPCall makes one tool call for a terminal (POST /control/mcp-call) until it ends
// or the terminal goes (the request's context).
func (h *Hosting) serveMCPCall(w http.ResponseWriter, r *http.Request) {
	var req mcpCallRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&req); err != nil {
		http.Error(w, "bad call request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	f := &frames{w: w, enc: json.NewEncoder(w)}
	res, err := h.s.MCP.CallTool(r.Context(), req.Server, req.Tool, req.Args, func(p tools.Progress) {
		p.Message = h.s.Redact.String(p.Message)
		_ = f.send(mcpCallFrame{Progress: &p})
	})
	end := mcpCallFrame{Done: true}
	if err != nil {
		end.Error = h.s.Redact.Error(apperr.From(err))
	} else {
		end.Result = &res
	}
	_ = f.send(end)
}

// callThroughOwner reads the owner's answer to a call, handing each progress report to
// progress as it arrives.
func (r remoteMCP) callThroughOwner(ctx context.Context, id, tool string, args json.RawMessage, progress func(tools.Progress)) (tools.Result, error) {
	body, err := json.Marshal(mcpCallRequest{Server: id, Tool: tool, Args: args})
	if err != nil {
		return tools.Result{}, apperr.Wrap(err, apperr.Internal, "encode the call of %s", tool)
	}
	resp, err := r.c.Post(ctx, "/control/mcp-call", body)
	if err != nil {
		return tools.Result{}, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	for sc.Scan() {
		var f mcpCallFrame
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return tools.Result{}, apperr.Wrap(err, apperr.Internal, "read the owner's answer to %s", tool)
		}
		switch {
		case f.Progress != nil && progress != nil:
			progress(*f.Progress)
		case f.Done && f.Error != nil:
			return tools.Result{}, f.Error
		case f.Done && f.Result != nil:
			return *f.Result, nil
		}
	}
	if ctx.Err() != nil {
		return tools.Result{}, apperr.Wrap(ctx.Err(), apperr.Canceled, "call %s", tool)
	}
	return tools.Result{}, apperr.New(apperr.OwnerGone, "the owner stopped before the call of %s ended", tool)
}
