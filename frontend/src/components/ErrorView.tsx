import { useTranslation } from "react-i18next";
import { toAppError, type AppError, type AppErrorAction } from "../api";
import { namespacedKey } from "../i18n";
import { normalizeSection } from "../shell/routes";
import { useMcpSignIn } from "../mcp/useMcpSignIn";
import { useOptionalRouter } from "../shell/router";
import { Icon } from "./Icon";

export interface ErrorViewProps {
  /** Anything a call rejected with; non-apperr values are shown by their raw text. */
  error: unknown;
  /** Shows a Retry button. */
  onRetry?: () => void;
  /** Overrides what the action button does (default: open-settings navigates, mcp-sign-in signs in). */
  onAction?: (action: AppErrorAction) => void;
  /** Smaller, inline variant (form fields, tool cards). */
  compact?: boolean;
  className?: string;
}

/** Localized text of an apperr; the raw message when the key is unknown to every locale. */
export function useErrorText(): (err: AppError) => string {
  const { t, i18n } = useTranslation();
  return (err) => {
    const key = namespacedKey(err.i18nKey);
    if (err.i18nKey && i18n.exists(key)) {
      return t(key, { ...(err.params ?? {}) });
    }
    return err.message || err.code || t("errorView.title");
  };
}

/**
 * The one component that renders any apperr: localized text with its parameters, the
 * action the backend suggests (open a settings section, retry), and the technical message
 * behind a disclosure.
 */
export function ErrorView({ error, onRetry, onAction, compact, className }: ErrorViewProps) {
  const { t } = useTranslation();
  const router = useOptionalRouter();
  const textOf = useErrorText();
  const err = toAppError(error);
  const text = textOf(err);
  const action = err.action;

  const openSettings = action?.kind === "open-settings" && (onAction || router);
  const section = openSettings ? normalizeSection(action?.target) : null;
  const signIn = action?.kind === "mcp-sign-in" && Boolean(action.target);
  const showRetry = Boolean(onRetry);
  const detail = err.message && err.message !== text ? err.message : "";

  return (
    <div
      role="alert"
      data-testid="error-view"
      data-error-code={err.code}
      className={["error-view", compact ? "error-view--compact" : "", className ?? ""].filter(Boolean).join(" ")}
    >
      <Icon name="alert" className="error-view__icon" size={compact ? 16 : 20} />
      <div className="error-view__body">
        <p className="error-view__text">{text}</p>
        {(openSettings || signIn || showRetry) && (
          <div className="error-view__actions">
            {openSettings && action && section && (
              <button
                type="button"
                className="btn btn--small"
                onClick={() => (onAction ? onAction(action) : router?.openSettings(section))}
              >
                {t("errorView.openSettings", { section: t(`settings:sections.${section}.title`) })}
              </button>
            )}
            {signIn && action && (onAction ? (
              <button type="button" className="btn btn--small" onClick={() => onAction(action)} data-testid="error-sign-in">
                {t("errorView.signIn")}
              </button>
            ) : (
              <McpSignInAction serverId={action.target ?? ""} />
            ))}
            {showRetry && (
              <button type="button" className="btn btn--small btn--quiet" onClick={onRetry}>
                <Icon name="refresh" size={14} />
                {t("actions.retry")}
              </button>
            )}
          </div>
        )}
        {(detail || err.code) && (
          <details className="error-view__details">
            <summary>{t("errorView.details")}</summary>
            <div className="error-view__detail-body">
              <div>
                {t("errorView.code")}: <code>{err.code}</code>
              </div>
              {detail && <pre>{detail}</pre>}
            </div>
          </details>
        )}
      </div>
    </div>
  );
}

/** The way out of an MCP server's sign-in error: starts the sign-in and opens its page. */
function McpSignInAction({ serverId }: { serverId: string }) {
  const { t } = useTranslation();
  const { start, busy, error, link } = useMcpSignIn();
  const textOf = useErrorText();
  return (
    <>
      <button type="button" className="btn btn--small" aria-disabled={busy || undefined} onClick={() => start(serverId)} data-testid="error-sign-in">
        {busy && <span className="spinner" aria-hidden="true" />}
        {t("errorView.signIn")}
      </button>
      {link && (
        <a href={link} target="_blank" rel="noopener noreferrer" data-testid="error-sign-in-link">
          {t("errorView.signInPage")}
        </a>
      )}
      {error && <span className="error-view__text">{textOf(error)}</span>}
    </>
  );
}
