/**
 * Offers text as a file to save: a Blob behind a temporary <a download>. Works in
 * browsers (cairn serve) and in the WebView2 / WKWebView windows; the caller also offers
 * "copy" because not every webview saves downloads.
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
