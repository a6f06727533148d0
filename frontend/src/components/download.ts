import { useCallback } from "react";
import { useClient } from "../api";
import { useAppInfo } from "../shell/appInfo";

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
