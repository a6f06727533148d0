package kb

import (
	"context"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// SetEmbedding changes a KB's embedding model ("PROVIDER/MODEL", empty for keywords only).
// A KB with chunks keeps its vectors and searches with them (keywords alone when it had
// none) while the ingest worker embeds every chunk again with the new model beside the
// old vectors; once all are there it switches in one transaction. The new vectors are in
// SQLite as they come, so a restart resumes the re-embed where it stopped. Setting the
// model the KB already has abandons a re-embed under way.
func (s *Service) SetEmbedding(ctx context.Context, ref, spec string) (KB, error) {
	k, err := s.st.KB(ctx, ref)
	if err != nil {
		return KB{}, err
	}
	provider, model := "", ""
	if spec != "" {
		if provider, model, err = s.checkEmbedding(ctx, spec); err != nil {
			return KB{}, err
		}
	}
	switch {
	case model == "":
		err = s.st.DropEmbedding(ctx, k.ID)
		s.dropIndex(k.ID)
	case provider == k.EmbedProvider && model == k.EmbedModel:
		err = s.st.SetNextEmbedding(ctx, k.ID, "", "")
	default:
		err = s.st.SetNextEmbedding(ctx, k.ID, provider, model)
	}
	if err != nil {
		return KB{}, err
	}
	s.changed()
	s.poke()
	return s.Get(ctx, k.ID)
}

func (s *Service) dropIndex(kbID string) {
	s.mu.Lock()
	delete(s.indexes, kbID)
	s.mu.Unlock()
}

// reembedStep does one batch of the first re-embed under way. It returns 0 when there is
// more to do at once, a wait after a failure, or -1 when no KB is being re-embedded.
func (s *Service) reembedStep() time.Duration {
	kbs, err := s.st.KBs(s.ctx)
	if err != nil {
		return time.Second
	}
	for _, k := range kbs {
		if k.Reembedding() {
			return s.reembedBatch(k)
		}
	}
	s.reembedFails = 0
	return -1
}

func (s *Service) reembedBatch(k KB) time.Duration {
	cs, err := s.st.NextUnembedded(s.ctx, k.ID, s.cfg.BatchSize)
	if err == nil && len(cs) == 0 {
		return s.switchEmbedding(k)
	}
	if err == nil {
		err = s.embedNext(k, cs)
	}
	if err != nil {
		if s.ctx.Err() != nil {
			return 0
		}
		s.reembedFails++
		wait := min(time.Duration(1<<min(s.reembedFails, 6))*time.Second, time.Minute)
		s.log.Warn("kb: re-embed batch failed", "kb", k.Name, "model", k.NextEmbedModel, "err", err, "retry in", wait)
		s.emitReembed(k, err)
		return wait
	}
	s.reembedFails = 0
	s.emitReembed(k, nil)
	return 0
}

func (s *Service) embedNext(k KB, cs []Chunk) error {
	if s.cfg.Embedders == nil {
		return apperr.New(apperr.KBEmbeddingFailed, "no embedding providers are available").WithParam("model", k.NextEmbedModel)
	}
	emb, err := s.cfg.Embedders(s.ctx, k.NextEmbedProvider, k.NextEmbedModel)
	if err != nil {
		return err
	}
	texts, ids := embedTexts(cs)
	vecs, err := emb.Embed(s.ctx, texts)
	if err != nil {
		return err
	}
	for _, v := range vecs {
		if k.NextDims == 0 {
			k.NextDims = len(v)
			if err := s.st.SetNextDims(s.ctx, k.ID, k.NextDims); err != nil {
				return err
			}
		}
		if len(v) != k.NextDims {
			return apperr.New(apperr.KBEmbeddingDims, "model %s answered %d dimensions, then %d", k.NextEmbedModel, k.NextDims, len(v)).
				WithParam("model", k.NextEmbedModel).WithParam("got", len(v)).WithParam("want", k.NextDims)
		}
	}
	return s.st.SetNextVectors(s.ctx, ids, vecs)
}

// embedTexts is what a model embeds for each chunk: its heading, then its text.
func embedTexts(cs []Chunk) ([]string, []int64) {
	texts := make([]string, len(cs))
	ids := make([]int64, len(cs))
	for i, c := range cs {
		texts[i], ids[i] = c.Text, c.ID
		if c.Heading != "" {
			texts[i] = c.Heading + "\n" + c.Text
		}
	}
	return texts, ids
}

func (s *Service) switchEmbedding(k KB) time.Duration {
	ok, err := s.st.SwitchEmbedding(s.ctx, k.ID)
	if err != nil {
		return time.Second
	}
	if !ok {
		return 0 // a chunk came in meanwhile
	}
	s.dropIndex(k.ID)
	s.log.Info("kb: re-embedded", "kb", k.Name, "model", k.NextEmbedModel)
	if s.cfg.Bus != nil {
		_, total, _ := s.st.ReembedCounts(s.ctx, k.ID)
		s.cfg.Bus.Publish(TopicKBs, TypeReembed, ReembedProgress{KBID: k.ID, Model: k.NextEmbedProvider + "/" + k.NextEmbedModel,
			Done: total, Total: total, Finished: true})
	}
	s.changed()
	return 0
}

func (s *Service) reembedProgress(ctx context.Context, k KB) *ReembedProgress {
	if !k.Reembedding() {
		return nil
	}
	done, total, err := s.st.ReembedCounts(ctx, k.ID)
	if err != nil {
		return nil
	}
	return &ReembedProgress{KBID: k.ID, Model: k.NextEmbedProvider + "/" + k.NextEmbedModel, Done: done, Total: total}
}

func (s *Service) emitReembed(k KB, err error) {
	if s.cfg.Bus == nil {
		return
	}
	p := s.reembedProgress(s.ctx, k)
	if p == nil {
		return
	}
	if err != nil {
		e := apperr.From(err)
		p.ErrorCode, p.ErrorMessage = string(e.Code), err.Error()
	}
	s.cfg.Bus.Publish(TopicKBs, TypeReembed, *p)
}
