package websearch

import "context"

// flight is one search in progress that identical searches wait for instead of sending
// their own request. It runs on a context of its own, cancelled when the last caller
// waiting for it leaves, so stopping every caller aborts the HTTP request and stopping
// one of several does not.
type flight struct {
	done    chan struct{}
	res     []Result
	err     error
	waiters int
	cancel  context.CancelFunc
}

// shared runs fn once for every caller asking for key at the same time.
func (s *Service) shared(ctx context.Context, key string, fn func(context.Context) ([]Result, error)) ([]Result, error) {
	s.mu.Lock()
	f, ok := s.flights[key]
	if !ok {
		fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &flight{done: make(chan struct{}), cancel: cancel}
		s.flights[key] = f
		go s.run(fctx, key, f, fn)
	}
	f.waiters++
	s.mu.Unlock()
	select {
	case <-f.done:
		return f.res, f.err
	case <-ctx.Done():
		s.mu.Lock()
		f.waiters--
		if f.waiters == 0 {
			f.cancel()
			if s.flights[key] == f {
				delete(s.flights, key)
			}
		}
		s.mu.Unlock()
		return nil, errCanceled(ctx.Err())
	}
}

func (s *Service) run(ctx context.Context, key string, f *flight, fn func(context.Context) ([]Result, error)) {
	res, err := fn(ctx)
	s.mu.Lock()
	if s.flights[key] == f {
		delete(s.flights, key)
	}
	f.res, f.err = res, err
	s.mu.Unlock()
	f.cancel()
	close(f.done)
}
