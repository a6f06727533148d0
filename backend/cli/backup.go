package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cairn-app/cairn/backend/buildinfo"
	"github.com/cairn-app/cairn/backend/service"
	"github.com/cairn-app/cairn/backend/transfer"
)

// Backup writes a backup of the owner's data directory to path (a terminal's `cairn
// backup` while an owner runs: the owner's database is the one to snapshot).
func (o *ownerCalls) Backup(path string, opt transfer.BackupOptions) (transfer.Manifest, error) {
	return writeBackup(o.ctx, o.s, path, opt)
}

func writeBackup(ctx context.Context, s *service.Services, path string, opt transfer.BackupOptions) (transfer.Manifest, error) {
	return transfer.WriteBackup(ctx, s.DB, s.DataDir, s.Secrets, "Cairn "+buildinfo.Get().Version, opt, path)
}

// runBackup is `cairn backup FILE [--with-keys]`: the passphrase for the keys is read
// from the terminal (hidden) or stdin, never from the arguments.
func runBackup(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "backup")
	withKeys := f.Bool("with-keys", false, "include the keys, encrypted with a passphrase (asked for, or read from stdin)")
	pos, err := parseInterspersed(f, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("usage: cairn backup FILE [--with-keys]")
	}
	path, err := filepath.Abs(pos[0])
	if err != nil {
		return err
	}
	opt := transfer.BackupOptions{WithKeys: *withKeys}
	if opt.WithKeys {
		if opt.Passphrase, err = readSecret(ctx, env, "Passphrase for the keys: "); err != nil {
			return err
		}
	}
	cn, err := env.connect(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	var m transfer.Manifest
	if cn.remote != nil {
		err = cn.remote.CallOwner(ctx, "Backup", &m, path, opt)
	} else {
		m, err = writeBackup(ctx, cn.local, path, opt)
	}
	if err != nil {
		return err
	}
	keys := "without keys"
	if m.WithKeys {
		keys = "with keys (encrypted)"
	}
	fmt.Fprintf(env.Stdout, "backup written to %s: database version %d, %d files, %s\n", path, m.Schema, m.Files, keys)
	return nil
}

// runRestore is `cairn restore FILE`: into the data directory (--data-dir for a new
// one), refused while the desktop app or serve owns it; nothing changes unless all of
// the backup checks out.
func runRestore(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "restore")
	pos, err := parseInterspersed(f, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("usage: cairn restore FILE  (into --data-dir, which no running Cairn may use)")
	}
	dir, err := service.ResolveDataDir(env.DataDir)
	if err != nil {
		return err
	}
	m, err := transfer.ReadManifest(pos[0])
	if err != nil {
		return err
	}
	opt := transfer.RestoreOptions{Secrets: os.Getenv("CAIRN_SECRETS")}
	if m.WithKeys {
		if opt.Passphrase, err = readSecret(ctx, env, "Passphrase of the backup's keys: "); err != nil {
			return err
		}
	}
	rep, err := transfer.Restore(ctx, pos[0], dir, opt)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "restored %s into %s (database version %d, %d files, %d keys)\n", filepath.Base(pos[0]), rep.DataDir, rep.Manifest.Schema, rep.Manifest.Files, rep.Keys)
	return nil
}
