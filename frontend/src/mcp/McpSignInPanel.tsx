import { useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, type AppError, type McpServerView } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useMcpSignIn } from "./useMcpSignIn";

/** Whether a server's card shows the sign-in panel (and so its own Sign in button). */
export function showsSignIn(s: McpServerView): boolean {
  const o = s.status?.oauth;
  return s.status?.state === "needs-sign-in" || Boolean(o?.pending || o?.signedIn);
}

/**
 * A remote server's OAuth sign-in: "Sign in" while it needs one, "Waiting for the browser…"
 * with the page and Cancel while a sign-in waits, "Signed in" with Sign out afterwards.
 */
export function McpSignInPanel({ server: s }: { server: McpServerView }) {
  const { t, i18n } = useTranslation("settings");
  const client = useClient();
  const signIn = useMcpSignIn();
  const [busy, setBusy] = useState<"cancel" | "signOut" | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  const oauth = s.status?.oauth;

  const run = async (what: "cancel" | "signOut", fn: () => Promise<unknown>) => {
    if (busy) return;
    setBusy(what);
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError(toAppError(e));
    } finally {
      setBusy(null);
    }
  };

  const time = (ms: number) =>
    new Intl.DateTimeFormat(i18n.language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(ms));

  let body;
  if (oauth?.pending) {
    body = (
      <div className="mcp-signin__row" role="status" data-testid="mcp-sign-in-pending">
        <span className="spinner" aria-hidden="true" />
        <span>{t("mcp.signIn.waiting")}</span>
        {oauth.authUrl && (
          <a href={oauth.authUrl} target="_blank" rel="noopener noreferrer" data-testid="mcp-sign-in-link">
            {t("mcp.signIn.openPage")}
          </a>
        )}
        <span className="spacer" />
        <button
          type="button"
          className="btn btn--small"
          aria-disabled={busy !== null || undefined}
          onClick={() => void run("cancel", () => client.mcp.cancelSignIn(s.id))}
          data-testid="mcp-sign-in-cancel"
        >
          {t("common:actions.cancel")}
        </button>
      </div>
    );
  } else if (oauth?.signedIn) {
    body = (
      <div className="mcp-signin__row" data-testid="mcp-signed-in">
        <Icon name="key" size={14} />
        <span>
          {[
            t("mcp.signIn.signedIn"),
            oauth.expiresAt ? t("mcp.signIn.expires", { time: time(oauth.expiresAt) }) : null,
            oauth.renewable ? t("mcp.signIn.renews") : null,
          ]
            .filter(Boolean)
            .join(" · ")}
        </span>
        <span className="spacer" />
        <button
          type="button"
          className="btn btn--small btn--danger-quiet"
          aria-disabled={busy !== null || undefined}
          onClick={() => void run("signOut", () => client.mcp.signOut(s.id))}
          data-testid="mcp-sign-out"
        >
          {t("mcp.signIn.signOut")}
        </button>
      </div>
    );
  } else {
    body = (
      <div className="mcp-signin__row">
        <span>{t("mcp.signIn.needed")}</span>
        <span className="spacer" />
        <button
          type="button"
          className="btn btn--small btn--primary"
          aria-disabled={signIn.busy || undefined}
          onClick={() => signIn.start(s.id)}
          data-testid="mcp-sign-in"
        >
          {signIn.busy && <span className="spinner" aria-hidden="true" />}
          {t("mcp.signIn.button")}
        </button>
      </div>
    );
  }

  return (
    <div className="mcp-signin" data-testid="mcp-sign-in-panel">
      {body}
      {signIn.link && !oauth?.pending && (
        <p className="mcp-signin__link">
          {t("mcp.signIn.linkHelp")}{" "}
          <a href={signIn.link} target="_blank" rel="noopener noreferrer" data-testid="mcp-sign-in-link">
            {t("mcp.signIn.openPage")}
          </a>
        </p>
      )}
      {(signIn.error || error) && <ErrorView error={signIn.error ?? error} compact />}
    </div>
  );
}
