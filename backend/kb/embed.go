package kb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// Embedder turns texts into vectors, one per text in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedderFor builds the embedder of a KB's provider and model.
type EmbedderFor func(ctx context.Context, provider, model string) (Embedder, error)

// OpenAIEmbedder speaks the OpenAI embeddings wire (POST {base}/embeddings), which most
// providers and local servers (Ollama, LM Studio, vLLM) answer. 429 and 5xx answers are
// retried with backoff, honouring Retry-After.
type OpenAIEmbedder struct {
	HTTP    *http.Client
	BaseURL string // ends before /embeddings, as a provider's base URL does (…/v1)
	Key     string
	Model   string
	// Attempts is the most tries per request (5); Backoff the first wait (500 ms), doubled
	// each time and capped at 30 s.
	Attempts int
	Backoff  time.Duration
}

type embedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// Embed sends one request for all texts.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	body, _ := json.Marshal(map[string]any{"model": e.Model, "input": texts, "encoding_format": "float"})
	attempts := e.Attempts
	if attempts <= 0 {
		attempts = 5
	}
	wait := e.Backoff
	if wait <= 0 {
		wait = 500 * time.Millisecond
	}
	var last error
	for a := 0; a < attempts; a++ {
		out, retryAfter, err := e.once(ctx, body, len(texts))
		if err == nil {
			return out, nil
		}
		last = err
		if retryAfter < 0 || a == attempts-1 {
			break
		}
		d := max(wait, retryAfter)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(d, 30*time.Second)):
		}
		wait *= 2
	}
	return nil, last
}

// once is one request; retryAfter is negative when trying again cannot help.
func (e *OpenAIEmbedder) once(ctx context.Context, body []byte, n int) ([][]float32, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(e.BaseURL, "/")+"/embeddings", bytes.NewReader(body))
	if err != nil {
		return nil, -1, embedErr(err, e.Model, 0)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.Key != "" {
		req.Header.Set("Authorization", "Bearer "+e.Key)
	}
	hc := e.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, -1, ctx.Err()
		}
		return nil, 0, embedErr(err, e.Model, 0)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, 0, embedErr(err, e.Model, resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		err := embedErr(fmt.Errorf("%s: %s", resp.Status, shorten(string(raw), 300)), e.Model, resp.StatusCode)
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			return nil, time.Duration(secs) * time.Second, err
		}
		return nil, -1, err
	}
	var er embedResponse
	if err := json.Unmarshal(raw, &er); err != nil || len(er.Data) != n {
		return nil, -1, embedErr(fmt.Errorf("answer has %d vectors for %d texts (%v)", len(er.Data), n, err), e.Model, resp.StatusCode)
	}
	out := make([][]float32, n)
	for _, d := range er.Data {
		if d.Index < 0 || d.Index >= n || len(d.Embedding) == 0 {
			return nil, -1, embedErr(fmt.Errorf("answer has a bad vector at index %d", d.Index), e.Model, resp.StatusCode)
		}
		out[d.Index] = d.Embedding
	}
	return out, 0, nil
}

func embedErr(err error, model string, status int) error {
	e := apperr.Wrap(err, apperr.KBEmbeddingFailed, "embedding with %s", model).WithParam("model", model)
	if status != 0 {
		e = e.WithParam("status", status)
	}
	return e
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
