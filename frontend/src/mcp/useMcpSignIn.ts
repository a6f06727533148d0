import { useCallback, useEffect, useRef, useState } from "react";
import { toAppError, useClient, type AppError } from "../api";

export interface McpSignIn {
  /** Starts the sign-in of a server; call it straight from the click (it may open a tab). */
  start: (serverId: string) => void;
  busy: boolean;
  error: AppError | null;
  /** The authorization page when nothing could open it: show it as a link. */
  link: string | null;
}

/**
 * The sign-in of a remote MCP server (AuthorizeMCPServer): the page opens in the system
 * browser (desktop; Cairn may have opened it already), in a tab prepared during the click
 * (`cairn serve`), or is returned as a link.
 */
export function useMcpSignIn(): McpSignIn {
  const client = useClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<AppError | null>(null);
  const [link, setLink] = useState<string | null>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const start = useCallback(
    (serverId: string) => {
      if (busy) return;
      const page = client.browser.prepare(); // before any await: the click still counts
      setBusy(true);
      setError(null);
      setLink(null);
      client.mcp.authorize(serverId).then(
        (res) => {
          if (res.opened || !res.authUrl) page.discard();
          else if (!page.show(res.authUrl) && mounted.current) setLink(res.authUrl);
          if (mounted.current) setBusy(false);
        },
        (e: unknown) => {
          page.discard();
          if (!mounted.current) return;
          setError(toAppError(e));
          setBusy(false);
        },
      );
    },
    [busy, client],
  );

  return { start, busy, error, link };
}
