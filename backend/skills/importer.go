package skills

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// Import limits: a skill is instructions and a few helper files.
const (
	MaxImportBytes   = 50 << 20 // unpacked bytes of one import
	MaxImportEntries = 2000     // files and folders of one import
)

// ImportFolder copies a skill folder (or a folder holding exactly one skill) into the
// data directory's skills/. Symbolic links in it are refused, like a zip's.
func (s *Service) ImportFolder(ctx context.Context, dir string) (Skill, error) {
	name := filepath.Base(dir)
	if isFile(dir) && strings.EqualFold(filepath.Ext(dir), ".zip") {
		return s.ImportZipFile(ctx, dir)
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return Skill{}, importErr(name, "it is neither a folder nor a .zip file")
	}
	return s.install(ctx, name, func(tmp string) error { return copyTree(dir, tmp, s.importLimit()) })
}

// ImportZipFile imports a zip file from disk.
func (s *Service) ImportZipFile(ctx context.Context, file string) (Skill, error) {
	f, err := os.Open(file)
	if err != nil {
		return Skill{}, importErr(filepath.Base(file), "it cannot be read")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Skill{}, importErr(filepath.Base(file), "it cannot be read")
	}
	return s.ImportZip(ctx, filepath.Base(file), f, st.Size())
}

// ImportZip imports a zip of a skill: SKILL.md at its top or in its one top folder. Every
// entry is checked before anything is written: no absolute path, no "..", no symbolic
// link, at most MaxImportEntries entries and MaxImportBytes unpacked (counted as read,
// not as the archive claims).
func (s *Service) ImportZip(ctx context.Context, name string, r io.ReaderAt, size int64) (Skill, error) {
	if size > s.importLimit() {
		return Skill{}, s.tooLarge(name)
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return Skill{}, importErr(name, "it is not a zip file")
	}
	if len(zr.File) > MaxImportEntries {
		return Skill{}, importErr(name, fmt.Sprintf("it has more than %d entries", MaxImportEntries))
	}
	for _, f := range zr.File {
		if err := checkEntry(f); err != nil {
			return Skill{}, importErr(name, err.Error())
		}
	}
	return s.install(ctx, name, func(tmp string) error { return unzip(zr, tmp, s.importLimit()) })
}

// checkEntry refuses an entry that could land outside the folder it is unpacked in.
func checkEntry(f *zip.File) error {
	n := f.Name
	if n == "" || strings.ContainsAny(n, "\\\x00") || path.IsAbs(n) || filepath.IsAbs(n) || (len(n) > 1 && n[1] == ':') {
		return fmt.Errorf("the entry %s has an absolute or non-portable path", apperr.Quote(n))
	}
	for _, part := range strings.Split(strings.TrimSuffix(n, "/"), "/") {
		if part == ".." {
			return fmt.Errorf("the entry %s steps out of the folder", apperr.Quote(n))
		}
	}
	if m := f.Mode(); m&fs.ModeSymlink != 0 || (!m.IsDir() && !m.IsRegular()) {
		return fmt.Errorf("the entry %s is a link or a special file", apperr.Quote(n))
	}
	return nil
}

func unzip(zr *zip.Reader, dst string, limit int64) error {
	var total int64
	for _, f := range zr.File {
		target := filepath.Join(dst, filepath.FromSlash(path.Clean(f.Name)))
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(target, 0o700); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			return err
		}
		n, err := unzipFile(f, target, limit-total)
		total += n
		if err != nil {
			return err
		}
	}
	return nil
}

var errTooLarge = errors.New("too large")

// unzipFile writes one entry, at most left bytes of it.
func unzipFile(f *zip.File, target string, left int64) (int64, error) {
	rc, err := f.Open()
	if err != nil {
		return 0, fmt.Errorf("the entry %s cannot be read: %w", apperr.Quote(f.Name), err)
	}
	defer rc.Close()
	out, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(rc, left+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > left {
		err = errTooLarge
	}
	return n, err
}

// copyTree copies a folder's regular files and folders; a symbolic link, a special
// file, or more than the import limits refuse the whole import.
func copyTree(src, dst string, limit int64) error {
	var total int64
	entries := 0
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if entries++; entries > MaxImportEntries {
			return fmt.Errorf("it has more than %d files", MaxImportEntries)
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o700)
		case !d.Type().IsRegular():
			return fmt.Errorf("%s is a link or a special file", apperr.Quote(filepath.ToSlash(rel)))
		}
		n, err := copyFile(p, target, limit-total)
		total += n
		return err
	})
}

func copyFile(src, dst string, left int64) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(in, left+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > left {
		err = errTooLarge
	}
	return n, err
}

// install fills a hidden temporary folder under skills/ with fill, finds the skill in it
// (at its top or in its one top folder), checks its SKILL.md and renames it into place
// under its name. Nothing is left behind when any step fails.
func (s *Service) install(ctx context.Context, what string, fill func(tmp string) error) (Skill, error) {
	base := filepath.Join(s.cfg.DataDir, "skills")
	tmp, err := os.MkdirTemp(base, ".import-")
	if err != nil {
		return Skill{}, apperr.Wrap(err, apperr.DataDirFailed, "create a folder for the import")
	}
	defer os.RemoveAll(tmp)
	if err := fill(tmp); err != nil {
		if errors.Is(err, errTooLarge) {
			return Skill{}, s.tooLarge(what)
		}
		return Skill{}, importErr(what, err.Error())
	}
	dir := tmp
	if !isFile(filepath.Join(dir, FileName)) {
		entries, _ := os.ReadDir(tmp)
		if len(entries) != 1 || !entries[0].IsDir() || !isFile(filepath.Join(tmp, entries[0].Name(), FileName)) {
			return Skill{}, importErr(what, "it has no "+FileName+" at its top or in its one top folder")
		}
		dir = filepath.Join(tmp, entries[0].Name())
	}
	name, _, _, err := parseFile(filepath.Join(dir, FileName))
	if err != nil {
		return Skill{}, importErr(what, err.Error())
	}
	if existing, err := s.Get(ctx, name); err == nil && existing.Source == SourceData {
		return Skill{}, apperr.New(apperr.SkillExists, "a skill named %s is already in the skills folder", name).WithParam("name", name)
	}
	final := filepath.Join(base, name)
	if err := os.Rename(dir, final); err != nil {
		if exists(final) {
			return Skill{}, apperr.New(apperr.SkillExists, "a folder named %s is already in the skills folder", name).WithParam("name", name)
		}
		return Skill{}, apperr.Wrap(err, apperr.DataDirFailed, "move the imported skill into place")
	}
	s.Rescan(ctx)
	return s.Get(ctx, name)
}

func importErr(name, reason string) error {
	return apperr.New(apperr.SkillImportInvalid, "%s cannot be imported as a skill: %s", name, reason).
		WithParam("name", name).WithParam("reason", reason)
}

func (s *Service) importLimit() int64 {
	if s.maxImport > 0 {
		return s.maxImport
	}
	return MaxImportBytes
}

func (s *Service) tooLarge(name string) error {
	limit := fmt.Sprintf("%d KiB", s.importLimit()>>10)
	return apperr.New(apperr.SkillImportTooLarge, "%s is larger than %s unpacked", name, limit).
		WithParam("name", name).WithParam("limit", limit)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}
