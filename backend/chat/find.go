package chat

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
	"unicode"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/kb"
	"github.com/cairn-app/cairn/backend/store"
)

// SearchLimit caps the hits of one search: a list to pick from, not an export.
const SearchLimit = 50

// snippetWidth is about how many characters of a message a hit shows.
const snippetWidth = 160

// SnippetSpan is a piece of a hit's snippet; Mark is a piece the query matched. The
// window renders the spans as text (marks in <mark>), never as HTML.
type SnippetSpan struct {
	Text string `json:"text"`
	Mark bool   `json:"mark,omitempty"`
}

// SearchHit is one message whose text matches a search.
type SearchHit struct {
	SessionID    string        `json:"sessionId"`
	SessionTitle string        `json:"sessionTitle"`
	SessionKind  string        `json:"sessionKind"`
	Archived     bool          `json:"archived"`
	MessageID    string        `json:"messageId"`
	Role         string        `json:"role"`
	CreatedAt    int64         `json:"createdAt"`
	Snippet      []SnippetSpan `json:"snippet"`
}

// SearchResult is the hits of a query, best first (FTS5 rank), one per message.
type SearchResult struct {
	Query string      `json:"query"`
	Hits  []SearchHit `json:"hits"`
}

// SearchMessages finds messages whose text has every term of the query (words, and CJK
// runs as bigrams, as the knowledge bases search), archived conversations included.
func (s *Service) SearchMessages(ctx context.Context, query string) (SearchResult, error) {
	out := SearchResult{Query: query, Hits: []SearchHit{}}
	exprs := kb.MatchExprs(query)
	if len(exprs) == 0 {
		return out, nil
	}
	rows, err := s.q.QueryContext(ctx, `SELECT s.id, s.title, s.kind, s.archived_at, m.id, m.role, m.created_at, p.text
		FROM message_fts f JOIN message_fts_parts mp ON mp.rowid = f.rowid JOIN parts p ON p.id = mp.part_id
		JOIN messages m ON m.id = p.message_id JOIN sessions s ON s.id = m.session_id
		WHERE message_fts MATCH ? ORDER BY f.rank, m.created_at DESC LIMIT ?`, exprs[0], SearchLimit*2)
	if err != nil {
		return SearchResult{}, apperr.Wrap(err, apperr.Internal, "search messages")
	}
	defer rows.Close()
	terms := kb.Terms(query)
	seen := map[string]bool{}
	for rows.Next() && len(out.Hits) < SearchLimit {
		var h SearchHit
		var archived int64
		var text string
		if err := rows.Scan(&h.SessionID, &h.SessionTitle, &h.SessionKind, &archived, &h.MessageID, &h.Role, &h.CreatedAt, &text); err != nil {
			return SearchResult{}, apperr.Wrap(err, apperr.Internal, "search messages")
		}
		if seen[h.MessageID] {
			continue // a message with several text parts is one hit
		}
		seen[h.MessageID] = true
		h.Archived, h.Snippet = archived > 0, Snippet(text, terms, snippetWidth)
		out.Hits = append(out.Hits, h)
	}
	return out, rows.Err()
}

// Snippet is about width characters of text around the first occurrence of a term, the
// occurrences marked. It is built from the part's own text rather than FTS5's snippet(),
// because the index holds the words with CJK blanked and the bigrams, not the text.
// Latin terms match whole words (as the index does), CJK terms anywhere.
func Snippet(text string, terms []string, width int) []SnippetSpan {
	r := []rune(text)
	lower := make([]rune, len(r))
	for i, c := range r {
		lower[i] = unicode.ToLower(c)
	}
	marks := make([]bool, len(r))
	first := -1
	for _, t := range terms {
		tr := []rune(t)
		for i := 0; i+len(tr) <= len(r) && len(tr) > 0; i++ {
			if !runesAt(lower, tr, i) || !wholeWord(lower, tr, i) {
				continue
			}
			for k := i; k < i+len(tr); k++ {
				marks[k] = true
			}
			if first < 0 || i < first {
				first = i
			}
		}
	}
	start := 0
	if first > width/4 {
		start = first - width/4
	}
	end := min(len(r), start+width)
	spans := []SnippetSpan{}
	if start > 0 {
		spans = append(spans, SnippetSpan{Text: "…"})
	}
	for i := start; i < end; {
		j := i
		for j < end && marks[j] == marks[i] {
			j++
		}
		seg := strings.Map(func(c rune) rune { // a snippet is one line
			if unicode.IsSpace(c) {
				return ' '
			}
			return c
		}, string(r[i:j]))
		spans = append(spans, SnippetSpan{Text: seg, Mark: marks[i]})
		i = j
	}
	if end < len(r) {
		spans = append(spans, SnippetSpan{Text: "…"})
	}
	return spans
}

func runesAt(s, t []rune, i int) bool {
	for k := range t {
		if s[i+k] != t[k] {
			return false
		}
	}
	return true
}

// wholeWord reports a Latin term standing as a word at i (a CJK term always does).
func wholeWord(s, t []rune, i int) bool {
	if store.IsCJK(t[0]) {
		return true
	}
	word := func(c rune) bool { return (unicode.IsLetter(c) || unicode.IsDigit(c)) && !store.IsCJK(c) }
	if i > 0 && word(s[i-1]) {
		return false
	}
	j := i + len(t)
	return j >= len(s) || !word(s[j])
}

// setFlag stamps (on) or clears a session's pin or archive column and announces it.
func (s *Service) setFlag(ctx context.Context, id, column string, on bool) (Session, error) {
	if _, err := loadSession(ctx, s.q, id); err != nil {
		return Session{}, err
	}
	var at int64
	if on {
		at = time.Now().UnixMilli()
	}
	if _, err := s.q.ExecContext(ctx, "UPDATE sessions SET "+column+" = ? WHERE id = ?", at, id); err != nil {
		return Session{}, apperr.Wrap(err, apperr.Internal, "update session %s", column)
	}
	sess, err := loadSession(ctx, s.q, id)
	if err != nil {
		return Session{}, err
	}
	sess = s.withState(sess)
	s.publishSession(sess)
	return sess, nil
}

// PinSession keeps a conversation on top of the list (or lets it go back in order).
func (s *Service) PinSession(ctx context.Context, id string, pinned bool) (Session, error) {
	return s.setFlag(ctx, id, "pinned_at", pinned)
}

// ArchiveSession takes a conversation out of the list (or restores it); it stays
// searchable and keeps its messages.
func (s *Service) ArchiveSession(ctx context.Context, id string, archived bool) (Session, error) {
	return s.setFlag(ctx, id, "archived_at", archived)
}

// reuseEmpty is the newest untitled, unarchived conversation of kind without messages
// and not answering, brought to the top of the list; ok false when there is none.
func (s *Service) reuseEmpty(ctx context.Context, kind string) (Session, bool, error) {
	var id string
	err := s.q.QueryRowContext(ctx, `SELECT id FROM sessions s WHERE kind = ? AND title = '' AND archived_at = 0
		AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id) ORDER BY active_at DESC, id LIMIT 1`, kind).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && s.State(id) != StateIdle) {
		return Session{}, false, nil
	}
	if err != nil {
		return Session{}, false, apperr.Wrap(err, apperr.Internal, "find empty session")
	}
	if _, err := s.q.ExecContext(ctx, "UPDATE sessions SET active_at = ? WHERE id = ?", time.Now().UnixMilli(), id); err != nil {
		return Session{}, false, apperr.Wrap(err, apperr.Internal, "reuse session")
	}
	sess, err := loadSession(ctx, s.q, id)
	if err != nil {
		return Session{}, false, err
	}
	sess = s.withState(sess)
	s.bus.Publish(events.TopicSessions, EventSessionsUpserted, sess)
	return sess, true, nil
}
