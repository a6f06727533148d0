package tools

// Remembered is how many sessions each of the pipeline's in-memory ledgers holds, so that
// tests can check a deleted session leaves nothing behind.
func (p *Pipeline) Remembered() (ledger, scopes, spilled int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ledger), len(p.scopes), len(p.spilled)
}
