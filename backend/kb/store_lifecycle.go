package kb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/cairn-app/cairn/backend/apperr"
)

// LifecycleStore is what sessions' attachments, folder sync, re-embedding and reranking
// keep (migration 0016), part of Store.
type LifecycleStore interface {
	// SetSessionKBs replaces the KBs a session has attached; SessionKBs lists their ids.
	SetSessionKBs(ctx context.Context, sessionID string, kbIDs []string) error
	SessionKBs(ctx context.Context, sessionID string) ([]string, error)

	AddFolder(ctx context.Context, f Folder) (Folder, error)
	Folder(ctx context.Context, id string) (Folder, error)
	// Folders lists a KB's folders, or every KB's when kbID is empty.
	Folders(ctx context.Context, kbID string) ([]Folder, error)
	SetFolderSync(ctx context.Context, id string, sync bool, syncedAt int64) error
	DeleteFolder(ctx context.Context, id string) error
	FolderEntries(ctx context.Context, folderID string) (map[string]FolderEntry, error)
	PutFolderEntry(ctx context.Context, e FolderEntry) error
	DeleteFolderEntry(ctx context.Context, folderID, rel string) error
	// EntryUsers counts the folder entries whose content is a file.
	EntryUsers(ctx context.Context, fileID string) (int, error)

	// SetNextEmbedding starts (or, with empty names, abandons) a move to another model:
	// every next vector is cleared.
	SetNextEmbedding(ctx context.Context, kbID, provider, model string) error
	SetNextDims(ctx context.Context, kbID string, dims int) error
	// NextUnembedded lists up to limit chunks of a KB without a vector from the next model.
	NextUnembedded(ctx context.Context, kbID string, limit int) ([]Chunk, error)
	SetNextVectors(ctx context.Context, ids []int64, vecs [][]float32) error
	// ReembedCounts is how many chunks of a KB have a next vector, out of all.
	ReembedCounts(ctx context.Context, kbID string) (done, total int, err error)
	// SwitchEmbedding makes the next model the KB's in one transaction when every chunk
	// has its vector; it reports whether it switched.
	SwitchEmbedding(ctx context.Context, kbID string) (bool, error)
	// DropEmbedding makes a KB keyword-only: no model, no vectors.
	DropEmbedding(ctx context.Context, kbID string) error
	SetRerank(ctx context.Context, kbID, provider, model string) error
}

// FolderEntry is one file last seen in a synced folder.
type FolderEntry struct {
	FolderID string
	Rel      string
	Size     int64
	MTime    int64
	SHA256   string
	FileID   string
}

func (s *SQLStore) SetSessionKBs(ctx context.Context, sessionID string, kbIDs []string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM kb_session_kbs WHERE session_id=?", sessionID); err != nil {
		return err
	}
	for _, id := range kbIDs {
		if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO kb_session_kbs (session_id, kb_id) VALUES (?,?)", sessionID, id); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (s *SQLStore) SessionKBs(ctx context.Context, sessionID string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT a.kb_id FROM kb_session_kbs a JOIN kb_bases b ON b.id = a.kb_id
		WHERE a.session_id=? ORDER BY b.name`, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

const folderCols = "id, kb_id, path, ignore, sync, synced_at, created_at"

func scanFolder(r interface{ Scan(...any) error }) (Folder, error) {
	var f Folder
	var ignore string
	if err := r.Scan(&f.ID, &f.KBID, &f.Path, &ignore, &f.Sync, &f.SyncedAt, &f.CreatedAt); err != nil {
		return Folder{}, err
	}
	if json.Unmarshal([]byte(ignore), &f.Ignore) != nil || f.Ignore == nil {
		f.Ignore = []string{}
	}
	return f, nil
}

func (s *SQLStore) AddFolder(ctx context.Context, f Folder) (Folder, error) {
	ignore, _ := json.Marshal(f.Ignore)
	_, err := s.db.ExecContext(ctx, "INSERT INTO kb_folders ("+folderCols+`) VALUES (?,?,?,?,?,?,?)
		ON CONFLICT (kb_id, path) DO UPDATE SET ignore=excluded.ignore, sync=excluded.sync`,
		f.ID, f.KBID, f.Path, string(ignore), f.Sync, 0, f.CreatedAt)
	if err != nil {
		return Folder{}, err
	}
	return scanFolder(s.db.QueryRowContext(ctx, "SELECT "+folderCols+" FROM kb_folders WHERE kb_id=? AND path=?", f.KBID, f.Path))
}

func (s *SQLStore) Folder(ctx context.Context, id string) (Folder, error) {
	f, err := scanFolder(s.db.QueryRowContext(ctx, "SELECT "+folderCols+" FROM kb_folders WHERE id=?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return Folder{}, apperr.New(apperr.KBFolderNotFound, "no knowledge base folder %s", apperr.Quote(id)).WithParam("name", id)
	}
	return f, err
}

func (s *SQLStore) Folders(ctx context.Context, kbID string) ([]Folder, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+folderCols+" FROM kb_folders WHERE ?='' OR kb_id=? ORDER BY path", kbID, kbID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Folder{}
	for rows.Next() {
		f, err := scanFolder(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

func (s *SQLStore) SetFolderSync(ctx context.Context, id string, sync bool, syncedAt int64) error {
	_, err := s.db.ExecContext(ctx, "UPDATE kb_folders SET sync=?, synced_at=max(synced_at, ?) WHERE id=?", sync, syncedAt, id)
	return err
}

func (s *SQLStore) DeleteFolder(ctx context.Context, id string) error {
	_, err := s.db.ExecContext(ctx, "DELETE FROM kb_folders WHERE id=?", id)
	return err
}

func (s *SQLStore) FolderEntries(ctx context.Context, folderID string) (map[string]FolderEntry, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT folder_id, rel, size, mtime, sha256, file_id FROM kb_folder_entries WHERE folder_id=?", folderID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]FolderEntry{}
	for rows.Next() {
		var e FolderEntry
		if err := rows.Scan(&e.FolderID, &e.Rel, &e.Size, &e.MTime, &e.SHA256, &e.FileID); err != nil {
			return nil, err
		}
		out[e.Rel] = e
	}
	return out, rows.Err()
}

func (s *SQLStore) PutFolderEntry(ctx context.Context, e FolderEntry) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO kb_folder_entries (folder_id, rel, size, mtime, sha256, file_id) VALUES (?,?,?,?,?,?)
		ON CONFLICT (folder_id, rel) DO UPDATE SET size=excluded.size, mtime=excluded.mtime, sha256=excluded.sha256, file_id=excluded.file_id`,
		e.FolderID, e.Rel, e.Size, e.MTime, e.SHA256, e.FileID)
	return err
}

func (s *SQLStore) DeleteFolderEntry(ctx context.Context, folderID, rel string) error {
	_, err := s.db.ExecContext(ctx, "DELETE FROM kb_folder_entries WHERE folder_id=? AND rel=?", folderID, rel)
	return err
}

func (s *SQLStore) EntryUsers(ctx context.Context, fileID string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM kb_folder_entries WHERE file_id=?", fileID).Scan(&n)
	return n, err
}

func (s *SQLStore) SetNextEmbedding(ctx context.Context, kbID, provider, model string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE kb_chunks SET next_vector=NULL WHERE kb_id=? AND next_vector IS NOT NULL", kbID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE kb_bases SET next_embed_provider=?, next_embed_model=?, next_embed_dims=0, updated_at=?
		WHERE id=?`, provider, model, now(), kbID); err != nil {
		return err
	}
	return tx.Commit()
}

func (s *SQLStore) SetNextDims(ctx context.Context, kbID string, dims int) error {
	_, err := s.db.ExecContext(ctx, "UPDATE kb_bases SET next_embed_dims=? WHERE id=?", dims, kbID)
	return err
}

func (s *SQLStore) NextUnembedded(ctx context.Context, kbID string, limit int) ([]Chunk, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+chunkCols+" FROM kb_chunks WHERE kb_id=? AND next_vector IS NULL ORDER BY id LIMIT ?", kbID, limit)
	if err != nil {
		return nil, err
	}
	return scanChunks(rows)
}

func (s *SQLStore) SetNextVectors(ctx context.Context, ids []int64, vecs [][]float32) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i, id := range ids {
		if _, err := tx.ExecContext(ctx, "UPDATE kb_chunks SET next_vector=? WHERE id=?", encodeVector(vecs[i]), id); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (s *SQLStore) ReembedCounts(ctx context.Context, kbID string) (int, int, error) {
	var done, total int
	err := s.db.QueryRowContext(ctx, "SELECT count(next_vector), count(*) FROM kb_chunks WHERE kb_id=?", kbID).Scan(&done, &total)
	return done, total, err
}

func (s *SQLStore) SwitchEmbedding(ctx context.Context, kbID string) (bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var missing int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM kb_chunks WHERE kb_id=? AND next_vector IS NULL", kbID).Scan(&missing); err != nil || missing > 0 {
		return false, err
	}
	steps := []string{
		// the codes go with the old vectors; the next load of the block writes new ones (FillCodes)
		"UPDATE kb_chunks SET vector=next_vector, code=NULL, next_vector=NULL WHERE kb_id=?",
		`UPDATE kb_bases SET embed_provider=next_embed_provider, embed_model=next_embed_model, embed_dims=next_embed_dims,
			next_embed_provider='', next_embed_model='', next_embed_dims=0 WHERE id=? AND next_embed_model<>''`,
		"UPDATE kb_files SET embedded=chunks WHERE kb_id=?",
	}
	for _, q := range steps {
		if _, err := tx.ExecContext(ctx, q, kbID); err != nil {
			return false, err
		}
	}
	return true, tx.Commit()
}

func (s *SQLStore) DropEmbedding(ctx context.Context, kbID string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	steps := []string{
		"UPDATE kb_chunks SET vector=NULL, code=NULL, next_vector=NULL WHERE kb_id=?",
		`UPDATE kb_bases SET embed_provider='', embed_model='', embed_dims=0, next_embed_provider='', next_embed_model='',
			next_embed_dims=0 WHERE id=?`,
		"UPDATE kb_files SET embedded=0, state=CASE state WHEN 'embedding' THEN 'done' ELSE state END WHERE kb_id=?",
		// A file paused while embedding has nothing left to embed: it resumes as done would.
		"UPDATE kb_files SET resume_state='' WHERE kb_id=? AND state='paused' AND resume_state='embedding'",
	}
	for _, q := range steps {
		if _, err := tx.ExecContext(ctx, q, kbID); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (s *SQLStore) SetRerank(ctx context.Context, kbID, provider, model string) error {
	_, err := s.db.ExecContext(ctx, "UPDATE kb_bases SET rerank_provider=?, rerank_model=?, updated_at=? WHERE id=?", provider, model, now(), kbID)
	return err
}
