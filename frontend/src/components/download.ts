import { useCallback } from "react";
import { useClient } from "../api";
import { useAppInfo } from "../shell/appInfo";
import { base64ToBytes, type TransferFile } from "../api/transfer";

/**
 * Offers text as a file to save: a Blob behind a temporary <a download>, for browsers
 * (cairn serve). The desktop window saves through useSaveText instead.
 */
export function downloadText(fileName: string, content: string, mimeType = "application/octet-stream"): void {
  const blob = new Blob([content], { type: mimeType });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  a.rel = "noopener";
  a.style.display = "none";
  document.body.appendChild(a);
  try {
    a.click();
  } finally {
    a.remove();
    // Give the browser a moment to start the download before the URL goes away.
    setTimeout(() => URL.revokeObjectURL(url), 30_000);
  }
}

/** Where a saved export went: a download, a file the user picked, or nowhere (cancelled). */
export type SaveOutcome = { kind: "downloaded"; file: string } | { kind: "saved"; file: string } | { kind: "cancelled" };

/**
 * Returns the way this window saves an export: the desktop window asks the backend, which
 * opens the native save dialog (its webview has no download UI of its own); a browser
 * downloads the file.
 */
export function useSaveText(): (fileName: string, content: string, mimeType?: string) => Promise<SaveOutcome> {
  const client = useClient();
  const desktop = useAppInfo().info?.desktop === true;
  return useCallback(
    async (fileName: string, content: string, mimeType?: string): Promise<SaveOutcome> => {
      if (desktop) {
        const path = await client.system.saveTextFile(fileName, content);
        return path ? { kind: "saved", file: path } : { kind: "cancelled" };
      }
      downloadText(fileName, content, mimeType);
      return { kind: "downloaded", file: fileName };
    },
    [client, desktop],
  );
}

/**
 * Returns the way this window saves a backend file (an export, a zip, a backup; bytes as
 * base64): the native dialog on the desktop, a download in a browser.
 */
export function useSaveFile(): (file: TransferFile) => Promise<SaveOutcome> {
  const client = useClient();
  const desktop = useAppInfo().info?.desktop === true;
  return useCallback(
    async (file: TransferFile): Promise<SaveOutcome> => {
      if (desktop) {
        const path = await client.transfer.saveFile(file.name, file.data);
        return path ? { kind: "saved", file: path } : { kind: "cancelled" };
      }
      downloadBytes(file.name, base64ToBytes(file.data), file.mime);
      return { kind: "downloaded", file: file.name };
    },
    [client, desktop],
  );
}

/** downloadText for bytes. */
export function downloadBytes(fileName: string, bytes: Uint8Array, mimeType: string): void {
  const blob = new Blob([bytes as BlobPart], { type: mimeType });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  a.rel = "noopener";
  a.style.display = "none";
  document.body.appendChild(a);
  try {
    a.click();
  } finally {
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 30_000);
  }
}
