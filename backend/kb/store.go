package kb

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// Store is everything the KB service keeps. It is narrow on purpose: a server database
// could back a shared team KB behind the same methods. SQLite (NewSQLStore) is the one
// implementation.
type Store interface {
	CreateKB(ctx context.Context, k KB) error
	UpdateKB(ctx context.Context, k KB) error
	DeleteKB(ctx context.Context, id string) error
	KBs(ctx context.Context) ([]KB, error)
	// KB finds a KB by id or name.
	KB(ctx context.Context, ref string) (KB, error)

	// AddFile stores f unless the KB has a file of the same content; it returns the file
	// kept and whether it was already there.
	AddFile(ctx context.Context, f File) (File, bool, error)
	File(ctx context.Context, id string) (File, error)
	Files(ctx context.Context, kbID string) ([]File, error)
	// DeleteFile removes a file, its chunks and their index rows; it returns the removed
	// chunk ids.
	DeleteFile(ctx context.Context, id string) ([]int64, error)
	// SetState moves a file from one of the states from (any when empty) to to; it reports
	// whether the file was in one of them.
	SetState(ctx context.Context, id string, to State, from []State, code, msg string) (bool, error)
	// Pause and Resume apply to the files of a KB, or to one file when fileID is set.
	Pause(ctx context.Context, kbID, fileID string) error
	Resume(ctx context.Context, kbID, fileID string) error
	// NextWork is the oldest file waiting in queued or embedding.
	NextWork(ctx context.Context) (File, bool, error)
	// Interrupted puts files a stopped process left in parsing back in the queue.
	Interrupted(ctx context.Context) error
	// ReplaceChunks deletes a file's chunks and inserts these in one transaction, so a
	// retry never duplicates a chunk; it sets each chunk's ID and returns the removed
	// chunk ids.
	ReplaceChunks(ctx context.Context, f File, chunks []Chunk) ([]int64, error)
	// Unembedded lists up to limit chunks of a file without a vector.
	Unembedded(ctx context.Context, fileID string, limit int) ([]Chunk, error)
	SetVectors(ctx context.Context, fileID string, ids []int64, vecs [][]float32) error
	// Vectors calls fn with every vector of a KB.
	Vectors(ctx context.Context, kbID string, fn func(id int64, v []float32)) error
	// FillCodes gives the KB's vectors that have no int8 code one (those stored before
	// codes were); it returns how many it wrote.
	FillCodes(ctx context.Context, kbID string) (int, error)
	// Codes calls fn with every int8 code of a KB (encodeCode's layout).
	Codes(ctx context.Context, kbID string, fn func(id int64, code []byte)) error
	// VectorsOf reads the float32 vectors of these chunks (those that have one).
	VectorsOf(ctx context.Context, ids []int64) (map[int64][]float32, error)
	// Keyword runs an FTS5 MATCH expression over the chunks of kbIDs (of every KB when
	// kbIDs is empty), best first.
	Keyword(ctx context.Context, kbIDs []string, match string, limit int) ([]int64, error)
	// MatchIDs are the chunks an FTS5 MATCH expression matches, ascending, unranked.
	MatchIDs(ctx context.Context, match string) ([]int64, error)
	// ChunkTexts calls fn with every chunk of a KB (id, heading, text) in id order.
	ChunkTexts(ctx context.Context, kbID string, fn func(id int64, heading, text string)) error
	Chunks(ctx context.Context, ids []int64) ([]Chunk, error)
	FileChunks(ctx context.Context, fileID string, from, to int) ([]Chunk, error)
	// BlobUsers counts the files of any KB with this content.
	BlobUsers(ctx context.Context, sha string) (int, error)
	LifecycleStore
}

// SQLStore is Store on Cairn's SQLite database (migration kb).
type SQLStore struct{ db *sql.DB }

// NewSQLStore returns the SQLite store.
func NewSQLStore(db *sql.DB) *SQLStore { return &SQLStore{db: db} }

func now() int64 { return time.Now().UnixMilli() }

const kbCols = "id, name, chunk_size, chunk_overlap, embed_provider, embed_model, embed_dims, created_at, updated_at, " +
	"next_embed_provider, next_embed_model, next_embed_dims, rerank_provider, rerank_model"

func scanKB(r interface{ Scan(...any) error }) (KB, error) {
	var k KB
	err := r.Scan(&k.ID, &k.Name, &k.ChunkSize, &k.ChunkOverlap, &k.EmbedProvider, &k.EmbedModel, &k.Dims, &k.CreatedAt, &k.UpdatedAt,
		&k.NextEmbedProvider, &k.NextEmbedModel, &k.NextDims, &k.RerankProvider, &k.RerankModel)
	return k, err
}

func isUnique(err error) bool { return err != nil && strings.Contains(err.Error(), "UNIQUE") }

func (s *SQLStore) CreateKB(ctx context.Context, k KB) error {
	_, err := s.db.ExecContext(ctx, "INSERT INTO kb_bases ("+kbCols+") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		k.ID, k.Name, k.ChunkSize, k.ChunkOverlap, k.EmbedProvider, k.EmbedModel, k.Dims, k.CreatedAt, k.UpdatedAt,
		k.NextEmbedProvider, k.NextEmbedModel, k.NextDims, k.RerankProvider, k.RerankModel)
	if isUnique(err) {
		return apperr.New(apperr.KBNameTaken, "a knowledge base named %s exists", apperr.Quote(k.Name)).WithParam("name", k.Name)
	}
	return err
}

func (s *SQLStore) UpdateKB(ctx context.Context, k KB) error {
	_, err := s.db.ExecContext(ctx, `UPDATE kb_bases SET name=?, chunk_size=?, chunk_overlap=?, embed_provider=?, embed_model=?,
		embed_dims=?, updated_at=? WHERE id=?`, k.Name, k.ChunkSize, k.ChunkOverlap, k.EmbedProvider, k.EmbedModel, k.Dims, now(), k.ID)
	if isUnique(err) {
		return apperr.New(apperr.KBNameTaken, "a knowledge base named %s exists", apperr.Quote(k.Name)).WithParam("name", k.Name)
	}
	return err
}

func (s *SQLStore) DeleteKB(ctx context.Context, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM kb_fts WHERE rowid IN (SELECT id FROM kb_chunks WHERE kb_id=?)", id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM kb_chunks WHERE kb_id=?", id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM kb_bases WHERE id=?", id); err != nil {
		return err
	}
	return tx.Commit()
}

func (s *SQLStore) KBs(ctx context.Context) ([]KB, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+kbCols+" FROM kb_bases ORDER BY name")
	return collect(rows, err, scanKB)
}

// collect scans every row of a query with scan; an empty result is an empty slice, not
// nil, so it goes out as [] in JSON.
func collect[T any](rows *sql.Rows, err error, scan func(interface{ Scan(...any) error }) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (s *SQLStore) KB(ctx context.Context, ref string) (KB, error) {
	k, err := scanKB(s.db.QueryRowContext(ctx, "SELECT "+kbCols+" FROM kb_bases WHERE id=? OR name=? ORDER BY id=? DESC LIMIT 1", ref, ref, ref))
	if errors.Is(err, sql.ErrNoRows) {
		return KB{}, apperr.New(apperr.KBNotFound, "no knowledge base %s", apperr.Quote(ref)).WithParam("name", ref)
	}
	return k, err
}

const fileCols = "id, kb_id, name, source, sha256, size, state, error_code, error_message, chunks, embedded, created_at, updated_at"

func scanFile(r interface{ Scan(...any) error }) (File, error) {
	var f File
	err := r.Scan(&f.ID, &f.KBID, &f.Name, &f.Source, &f.SHA256, &f.Size, &f.State, &f.ErrorCode, &f.ErrorMessage,
		&f.Chunks, &f.Embedded, &f.CreatedAt, &f.UpdatedAt)
	return f, err
}

func (s *SQLStore) AddFile(ctx context.Context, f File) (File, bool, error) {
	res, err := s.db.ExecContext(ctx, "INSERT INTO kb_files ("+fileCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT (kb_id, sha256) DO NOTHING`, f.ID, f.KBID, f.Name, f.Source, f.SHA256, f.Size, f.State, "", "", 0, 0, f.CreatedAt, f.UpdatedAt)
	if err != nil {
		return File{}, false, err
	}
	n, _ := res.RowsAffected()
	got, err := scanFile(s.db.QueryRowContext(ctx, "SELECT "+fileCols+" FROM kb_files WHERE kb_id=? AND sha256=?", f.KBID, f.SHA256))
	return got, n == 0, err
}

func (s *SQLStore) File(ctx context.Context, id string) (File, error) {
	f, err := scanFile(s.db.QueryRowContext(ctx, "SELECT "+fileCols+" FROM kb_files WHERE id=?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return File{}, apperr.New(apperr.KBFileNotFound, "no knowledge base file %s", apperr.Quote(id)).WithParam("name", id)
	}
	return f, err
}

func (s *SQLStore) Files(ctx context.Context, kbID string) ([]File, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+fileCols+" FROM kb_files WHERE kb_id=? ORDER BY name, created_at", kbID)
	return collect(rows, err, scanFile)
}

// deleteChunks removes a file's chunks and their FTS rows inside tx.
func deleteChunks(ctx context.Context, tx *sql.Tx, fileID string) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, "SELECT id FROM kb_chunks WHERE file_id=?", fileID)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if _, err := tx.ExecContext(ctx, "DELETE FROM kb_fts WHERE rowid IN (SELECT id FROM kb_chunks WHERE file_id=?)", fileID); err != nil {
		return nil, err
	}
	_, err = tx.ExecContext(ctx, "DELETE FROM kb_chunks WHERE file_id=?", fileID)
	return ids, err
}

func (s *SQLStore) DeleteFile(ctx context.Context, id string) ([]int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	ids, err := deleteChunks(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM kb_files WHERE id=?", id); err != nil {
		return nil, err
	}
	return ids, tx.Commit()
}

func states(ss []State) (string, []any) {
	ph := make([]string, len(ss))
	args := make([]any, len(ss))
	for i, s := range ss {
		ph[i], args[i] = "?", string(s)
	}
	return strings.Join(ph, ","), args
}

func (s *SQLStore) SetState(ctx context.Context, id string, to State, from []State, code, msg string) (bool, error) {
	q := "UPDATE kb_files SET state=?, error_code=?, error_message=?, updated_at=? WHERE id=?"
	args := []any{string(to), code, msg, now(), id}
	if len(from) > 0 {
		ph, a := states(from)
		q += " AND state IN (" + ph + ")"
		args = append(args, a...)
	}
	res, err := s.db.ExecContext(ctx, q, args...)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

func scope(kbID, fileID string) (string, []any) {
	if fileID != "" {
		return "id=?", []any{fileID}
	}
	return "kb_id=?", []any{kbID}
}

func (s *SQLStore) Pause(ctx context.Context, kbID, fileID string) error {
	w, args := scope(kbID, fileID)
	_, err := s.db.ExecContext(ctx, "UPDATE kb_files SET resume_state=state, state='paused', updated_at=? WHERE "+w+
		" AND state IN ('queued','parsing','embedding')", append([]any{now()}, args...)...)
	return err
}

func (s *SQLStore) Resume(ctx context.Context, kbID, fileID string) error {
	w, args := scope(kbID, fileID)
	_, err := s.db.ExecContext(ctx, `UPDATE kb_files SET state=CASE resume_state WHEN 'embedding' THEN 'embedding' ELSE 'queued' END,
		resume_state='', updated_at=? WHERE `+w+" AND state='paused'", append([]any{now()}, args...)...)
	return err
}

func (s *SQLStore) NextWork(ctx context.Context) (File, bool, error) {
	f, err := scanFile(s.db.QueryRowContext(ctx, "SELECT "+fileCols+
		" FROM kb_files WHERE state IN ('queued','embedding') ORDER BY state='embedding' DESC, updated_at, created_at LIMIT 1"))
	if errors.Is(err, sql.ErrNoRows) {
		return File{}, false, nil
	}
	return f, err == nil, err
}

func (s *SQLStore) Interrupted(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, "UPDATE kb_files SET state='queued' WHERE state='parsing'")
	return err
}

func (s *SQLStore) ReplaceChunks(ctx context.Context, f File, chunks []Chunk) ([]int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	old, err := deleteChunks(ctx, tx, f.ID)
	if err != nil {
		return nil, err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO kb_chunks (file_id, kb_id, idx, text, heading, page_start, page_end, line_start, line_end)
		VALUES (?,?,?,?,?,?,?,?,?)`)
	if err != nil {
		return nil, err
	}
	defer ins.Close()
	fts, err := tx.PrepareContext(ctx, "INSERT INTO kb_fts (rowid, text, cjk) VALUES (?,?,?)")
	if err != nil {
		return nil, err
	}
	defer fts.Close()
	for i, c := range chunks {
		res, err := ins.ExecContext(ctx, f.ID, f.KBID, c.Index, c.Text, c.Heading, c.PageStart, c.PageEnd, c.LineStart, c.LineEnd)
		if err != nil {
			return nil, err
		}
		id, _ := res.LastInsertId()
		chunks[i].ID = id
		all := c.Heading + "\n" + c.Text
		if _, err := fts.ExecContext(ctx, id, Words(all), Bigrams(all)); err != nil {
			return nil, err
		}
	}
	if _, err := tx.ExecContext(ctx, "UPDATE kb_files SET chunks=?, embedded=0, updated_at=? WHERE id=?", len(chunks), now(), f.ID); err != nil {
		return nil, err
	}
	return old, tx.Commit()
}

const chunkCols = "id, file_id, kb_id, idx, text, heading, page_start, page_end, line_start, line_end"

func scanChunks(rows *sql.Rows) ([]Chunk, error) {
	defer rows.Close()
	var out []Chunk
	for rows.Next() {
		var c Chunk
		if err := rows.Scan(&c.ID, &c.FileID, &c.KBID, &c.Index, &c.Text, &c.Heading, &c.PageStart, &c.PageEnd, &c.LineStart, &c.LineEnd); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func (s *SQLStore) Unembedded(ctx context.Context, fileID string, limit int) ([]Chunk, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+chunkCols+" FROM kb_chunks WHERE file_id=? AND vector IS NULL ORDER BY idx LIMIT ?", fileID, limit)
	if err != nil {
		return nil, err
	}
	return scanChunks(rows)
}

func (s *SQLStore) SetVectors(ctx context.Context, fileID string, ids []int64, vecs [][]float32) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i, id := range ids {
		if _, err := tx.ExecContext(ctx, "UPDATE kb_chunks SET vector=?, code=? WHERE id=? AND file_id=?",
			encodeVector(vecs[i]), encodeCode(vecs[i]), id, fileID); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE kb_files SET embedded=(SELECT count(*) FROM kb_chunks WHERE file_id=? AND vector IS NOT NULL),
		updated_at=? WHERE id=?`, fileID, now(), fileID); err != nil {
		return err
	}
	return tx.Commit()
}

func (s *SQLStore) Vectors(ctx context.Context, kbID string, fn func(id int64, v []float32)) error {
	rows, err := s.db.QueryContext(ctx, "SELECT id, vector FROM kb_chunks WHERE kb_id=? AND vector IS NOT NULL ORDER BY id", kbID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return err
		}
		fn(id, decodeVector(b))
	}
	return rows.Err()
}

// Keyword ranks by bm25 inside FTS5. Without a KB filter there is no join: a join looks up
// every matching row in kb_chunks before the LIMIT, which was 40 % of a query's time.
func (s *SQLStore) Keyword(ctx context.Context, kbIDs []string, match string, limit int) ([]int64, error) {
	q := "SELECT rowid FROM kb_fts WHERE kb_fts MATCH ? ORDER BY bm25(kb_fts) LIMIT ?"
	args := []any{match}
	if len(kbIDs) > 0 {
		ph := strings.TrimSuffix(strings.Repeat("?,", len(kbIDs)), ",")
		q = `SELECT f.rowid FROM kb_fts f JOIN kb_chunks c ON c.id = f.rowid
		WHERE kb_fts MATCH ? AND c.kb_id IN (` + ph + `) ORDER BY bm25(kb_fts) LIMIT ?`
		for _, id := range kbIDs {
			args = append(args, id)
		}
	}
	rows, err := s.db.QueryContext(ctx, q, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	return scanIDs(rows)
}

func (s *SQLStore) MatchIDs(ctx context.Context, match string) ([]int64, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT rowid FROM kb_fts WHERE kb_fts MATCH ? ORDER BY rowid", match)
	if err != nil {
		return nil, fmt.Errorf("keyword match: %w", err)
	}
	return scanIDs(rows)
}

func (s *SQLStore) ChunkTexts(ctx context.Context, kbID string, fn func(id int64, heading, text string)) error {
	rows, err := s.db.QueryContext(ctx, "SELECT id, heading, text FROM kb_chunks WHERE kb_id=? ORDER BY id", kbID)
	if err != nil {
		return fmt.Errorf("read chunks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var heading, text string
		if err := rows.Scan(&id, &heading, &text); err != nil {
			return fmt.Errorf("read chunks: %w", err)
		}
		fn(id, heading, text)
	}
	return rows.Err()
}

func scanIDs(rows *sql.Rows) ([]int64, error) {
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// FillCodes works in batches of 512 rows, one transaction each, so a large KB migrated
// from before codes does not hold the write lock for long.
func (s *SQLStore) FillCodes(ctx context.Context, kbID string) (int, error) {
	total := 0
	for {
		n, err := s.fillCodes(ctx, kbID, 512)
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
}

func (s *SQLStore) fillCodes(ctx context.Context, kbID string, batch int) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, "SELECT id, vector FROM kb_chunks WHERE kb_id=? AND vector IS NOT NULL AND code IS NULL LIMIT ?", kbID, batch)
	if err != nil {
		return 0, err
	}
	codes := map[int64][]byte{}
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			rows.Close()
			return 0, err
		}
		codes[id] = encodeCode(decodeVector(b))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for id, c := range codes {
		if _, err := tx.ExecContext(ctx, "UPDATE kb_chunks SET code=? WHERE id=?", c, id); err != nil {
			return 0, err
		}
	}
	return len(codes), tx.Commit()
}

func (s *SQLStore) Codes(ctx context.Context, kbID string, fn func(id int64, code []byte)) error {
	rows, err := s.db.QueryContext(ctx, "SELECT id, code FROM kb_chunks WHERE kb_id=? AND code IS NOT NULL ORDER BY id", kbID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return err
		}
		fn(id, b)
	}
	return rows.Err()
}

func (s *SQLStore) VectorsOf(ctx context.Context, ids []int64) (map[int64][]float32, error) {
	out := make(map[int64][]float32, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	ph := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.db.QueryContext(ctx, "SELECT id, vector FROM kb_chunks WHERE vector IS NOT NULL AND id IN ("+ph+")", args...)
	if err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, err
		}
		out[id] = decodeVector(b)
	}
	return out, rows.Err()
}

func (s *SQLStore) Chunks(ctx context.Context, ids []int64) ([]Chunk, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	ph := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.db.QueryContext(ctx, "SELECT "+chunkCols+" FROM kb_chunks WHERE id IN ("+ph+")", args...)
	if err != nil {
		return nil, err
	}
	return scanChunks(rows)
}

func (s *SQLStore) FileChunks(ctx context.Context, fileID string, from, to int) ([]Chunk, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+chunkCols+" FROM kb_chunks WHERE file_id=? AND idx BETWEEN ? AND ? ORDER BY idx", fileID, from, to)
	if err != nil {
		return nil, err
	}
	return scanChunks(rows)
}

func (s *SQLStore) BlobUsers(ctx context.Context, sha string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM kb_files WHERE sha256=?", sha).Scan(&n)
	return n, err
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
