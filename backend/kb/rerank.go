package kb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// Reranker orders documents by their relevance to a query.
type Reranker interface {
	// Rerank returns a score for each document it ranks, by the document's index.
	Rerank(ctx context.Context, query string, docs []string) (map[int]float64, error)
}

// RerankerFor builds the reranker of a KB's provider and model.
type RerankerFor func(ctx context.Context, provider, model string) (Reranker, error)

// HTTPReranker speaks the rerank wire Jina, Cohere (v1 and v2), Voyage, SiliconFlow and
// local servers (Infinity, TEI's OpenAI-style routes) share: POST {base}/rerank with
// {model, query, documents, top_n}, answered with {results: [{index, relevance_score}]}.
type HTTPReranker struct {
	HTTP    *http.Client
	BaseURL string // ends before /rerank (…/v1)
	Key     string
	Model   string
}

// Rerank sends one request for all documents.
func (r *HTTPReranker) Rerank(ctx context.Context, query string, docs []string) (map[int]float64, error) {
	body, _ := json.Marshal(map[string]any{"model": r.Model, "query": query, "documents": docs, "top_n": len(docs),
		"return_documents": false})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(r.BaseURL, "/")+"/rerank", bytes.NewReader(body))
	if err != nil {
		return nil, r.fail(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if r.Key != "" {
		req.Header.Set("Authorization", "Bearer "+r.Key)
	}
	hc := r.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, r.fail(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, r.fail(err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, r.fail(fmt.Errorf("%s: %s", resp.Status, shorten(string(raw), 300)))
	}
	var out struct {
		Results []struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, r.fail(fmt.Errorf("unreadable answer: %w", err))
	}
	scores := make(map[int]float64, len(out.Results))
	for _, res := range out.Results {
		if res.Index < 0 || res.Index >= len(docs) {
			return nil, r.fail(fmt.Errorf("answer ranks document %d of %d", res.Index, len(docs)))
		}
		scores[res.Index] = res.Score
	}
	return scores, nil
}

func (r *HTTPReranker) fail(err error) error {
	return apperr.Wrap(err, apperr.KBRerankFailed, "rerank with %s", r.Model).WithParam("model", r.Model)
}

// SetRerank sets (or, with "", clears) a KB's rerank model, "PROVIDER/MODEL".
func (s *Service) SetRerank(ctx context.Context, ref, spec string) (KB, error) {
	k, err := s.st.KB(ctx, ref)
	if err != nil {
		return KB{}, err
	}
	provider, model := "", ""
	if spec != "" {
		p, m, ok := strings.Cut(strings.TrimSpace(spec), "/")
		if !ok || p == "" || m == "" {
			return KB{}, apperr.New(apperr.InvalidArgument, "rerank must be PROVIDER/MODEL, not %s", apperr.Quote(spec))
		}
		if s.cfg.Rerankers == nil {
			return KB{}, apperr.New(apperr.InvalidArgument, "no rerank providers are available here")
		}
		if _, err := s.cfg.Rerankers(ctx, p, m); err != nil {
			return KB{}, err
		}
		provider, model = p, m
	}
	if err := s.st.SetRerank(ctx, k.ID, provider, model); err != nil {
		return KB{}, err
	}
	s.changed()
	return s.Get(ctx, k.ID)
}

// rerank reorders fused results with the rerank model of the first searched KB that has
// one (the documents are text; any reranker can order passages from several KBs) and
// keeps the best k. Without one, or when it fails, the fused order stands.
func (s *Service) rerank(ctx context.Context, kbs []KB, q string, fs []fused, k int) []fused {
	var rk KB
	for _, b := range kbs {
		if b.RerankModel != "" {
			rk = b
			break
		}
	}
	if rk.RerankModel == "" || s.cfg.Rerankers == nil || len(fs) < 2 {
		return fs[:min(k, len(fs))]
	}
	scored, err := s.rerankWith(ctx, rk, q, fs)
	if err != nil {
		s.log.Warn("kb: rerank failed; fused order kept", "model", rk.RerankProvider+"/"+rk.RerankModel, "err", err)
		return fs[:min(k, len(fs))]
	}
	return scored[:min(k, len(scored))]
}

func (s *Service) rerankWith(ctx context.Context, rk KB, q string, fs []fused) ([]fused, error) {
	ids := make([]int64, len(fs))
	for i, f := range fs {
		ids[i] = f.id
	}
	chunks, err := s.st.Chunks(ctx, ids)
	if err != nil {
		return nil, err
	}
	text := map[int64]string{}
	for _, c := range chunks {
		text[c.ID] = strings.TrimSpace(c.Heading + "\n" + c.Text)
	}
	docs := make([]string, len(fs))
	for i, f := range fs {
		docs[i] = text[f.id]
	}
	r, err := s.cfg.Rerankers(ctx, rk.RerankProvider, rk.RerankModel)
	if err != nil {
		return nil, err
	}
	scores, err := r.Rerank(ctx, q, docs)
	if err != nil {
		return nil, err
	}
	out := make([]fused, 0, len(scores))
	for i, f := range fs {
		if sc, ok := scores[i]; ok {
			f.score = sc
			f.via = append(append([]string(nil), f.via...), "rerank")
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out, nil
}
