package websearch

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/cairn-app/cairn/backend/store"
)

// Cache keeps search answers in SQLite until their TTL ends.
type Cache struct {
	db  *store.DB
	now func() time.Time
}

// NewCache is the cache over an open database (migration websearch_cache).
func NewCache(db *store.DB) *Cache { return &Cache{db: db, now: time.Now} }

// normalizeQuery is the query as the cache compares it: NFC, case folded, spaces collapsed.
func normalizeQuery(q string) string {
	return strings.ToLower(strings.Join(strings.Fields(norm.NFC.String(q)), " "))
}

// cacheKey names one search: provider, endpoint, normalized query and options.
func cacheKey(id, endpoint, query string, o Options) string {
	o.Count = o.count()
	o.Site = strings.ToLower(strings.TrimSpace(o.Site))
	opts, _ := json.Marshal(o)
	h := sha256.Sum256([]byte(id + "\x00" + endpoint + "\x00" + normalizeQuery(query) + "\x00" + string(opts)))
	return hex.EncodeToString(h[:])
}

// Get returns a stored answer that has not expired.
func (c *Cache) Get(ctx context.Context, key string) ([]Result, bool) {
	var raw string
	err := c.db.QueryRowContext(ctx, "SELECT results FROM websearch_cache WHERE key = ? AND expires_at > ?",
		key, c.now().UnixMilli()).Scan(&raw)
	if err != nil {
		return nil, false
	}
	var res []Result
	if json.Unmarshal([]byte(raw), &res) != nil {
		return nil, false
	}
	return res, true
}

// Put stores an answer for ttl and drops expired ones.
func (c *Cache) Put(ctx context.Context, key, provider, query string, res []Result, ttl time.Duration) error {
	if res == nil {
		res = []Result{}
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	now := c.now()
	_, err = c.db.ExecContext(ctx, `INSERT INTO websearch_cache (key, provider, query, results, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET results = excluded.results,
		created_at = excluded.created_at, expires_at = excluded.expires_at`,
		key, provider, normalizeQuery(query), string(b), now.UnixMilli(), now.Add(ttl).UnixMilli())
	if err != nil {
		return err
	}
	_, err = c.db.ExecContext(ctx, "DELETE FROM websearch_cache WHERE expires_at <= ?", now.UnixMilli())
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	return err
}
