import type { Transport } from "./types";
import type * as wire from "./generated";

export type TransferFile = wire.TransferFile;
export type ExportOptions = wire.TransferExportOptions;
export type ImportReport = wire.TransferImportReport;
export type ImportItem = wire.TransferImportItem;
export type BackupOptions = wire.TransferBackupOptions;
export type ExportFormat = "md" | "json";

/** Your data, out and back (app_transfer.go): exports, imports, backups. Bytes travel as base64. */
export function transferApi(t: Transport) {
  return {
    exportSession: (id: string, format: ExportFormat, opt: ExportOptions) => t.call<TransferFile>("ExportSession", id, format, opt),
    exportAll: (opt: ExportOptions) => t.call<TransferFile>("ExportAllSessions", opt),
    /** data is the file's bytes as base64. */
    importConversations: (name: string, data: string) => t.call<ImportReport>("ImportConversations", name, data),
    createBackup: (opt: BackupOptions) => t.call<TransferFile>("CreateBackup", opt),
    /** Checks a backup and stages it for the next start (data is base64). */
    stageRestore: (name: string, data: string) => t.call<wire.TransferManifest>("StageRestore", name, data),
    restoreState: () => t.call<wire.RestoreState>("GetRestoreState"),
    cancelRestore: () => t.call<void>("CancelRestore"),
    /** Desktop only: the native save dialog for bytes (base64); "" when cancelled. */
    saveFile: (name: string, data: string) => t.call<string>("SaveFile", name, data),
  };
}

export type TransferApi = ReturnType<typeof transferApi>;

/** Decodes base64 (as encoding/json writes []byte) to bytes. */
export function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Encodes bytes as base64, in chunks (a large file would overflow the argument list). */
export function bytesToBase64(bytes: Uint8Array): string {
  let bin = "";
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) bin += String.fromCharCode(...bytes.subarray(i, i + step));
  return btoa(bin);
}
