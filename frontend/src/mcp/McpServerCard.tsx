import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, type AppError, type McpServerView, type McpStatus, type McpTestReport } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { normalizeSection } from "../shell/routes";
import { McpEnvView } from "./McpEnvView";
import { McpLogView } from "./McpLogView";
import { McpSignInPanel, showsSignIn } from "./McpSignInPanel";
import { McpTestReportView } from "./McpTestReport";
import { McpToolsList } from "./McpToolsList";
import { describeTarget, serverInfoText } from "./model";

type Busy = "enable" | "refresh" | "restart" | "test" | null;

/** Ticks once a second while `on` (restart countdowns). */
function useNow(on: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    setNow(Date.now());
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [on]);
  return now;
}

/** The state badge (`mcp-status`, data-state = the backend's state). */
export function McpStatusBadge({ status }: { status: McpStatus | undefined }) {
  const { t } = useTranslation("settings");
  const state = status?.state ?? "idle";
  const cls =
    state === "ready"
      ? "badge--ok"
      : state === "error" || state === "failed"
        ? "badge--danger"
        : state === "starting" || state === "needs-sign-in"
          ? "badge--warn"
          : "";
  return (
    <span className={`badge mcp-status ${cls}`} data-testid="mcp-status" data-state={state} role="status">
      {state === "starting" && <span className="spinner" aria-hidden="true" />}
      {t(`mcp.state.${state}`, { defaultValue: state })}
    </span>
  );
}

function withoutSelfAction(err: AppError, signInShown: boolean): AppError {
  const a = err.action;
  if (a?.kind === "open-settings" && normalizeSection(a.target) === "mcp") return { ...err, action: undefined };
  if (a?.kind === "mcp-sign-in" && signInShown) return { ...err, action: undefined }; // the card has its own button
  return err;
}

/** One server: status, what it runs, its actions; tools, log and the last test open below. */
export function McpServerCard({ server: s, onEdit, onDelete }: { server: McpServerView; onEdit: () => void; onDelete: () => void }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const [busy, setBusy] = useState<Busy>(null);
  const [actionError, setActionError] = useState<AppError | null>(null);
  const [report, setReport] = useState<McpTestReport | null>(null);
  const [showTools, setShowTools] = useState(false);
  const [showLog, setShowLog] = useState(false);
  const [showEnv, setShowEnv] = useState(false);
  const status = s.status;
  const now = useNow(Boolean(status?.retryAt));
  const info = serverInfoText(status?.serverInfo);
  const tools = s.tools ?? [];
  const toolsOn = tools.filter((x) => x.enabled).length;

  // Buttons stay enabled while busy (aria-disabled) so keyboard focus is never dropped.
  const run = async (what: Exclude<Busy, null>, fn: () => Promise<unknown>) => {
    if (busy) return;
    setBusy(what);
    setActionError(null);
    try {
      await fn();
    } catch (e) {
      setActionError(toAppError(e));
    } finally {
      setBusy(null);
    }
  };

  const test = () =>
    run("test", async () => {
      setReport(null);
      setReport(await client.mcp.test(s));
    });

  const signIn = showsSignIn(s);
  const failed = status?.state === "error" || status?.state === "failed" || status?.state === "needs-sign-in";
  const retryIn = status?.retryAt ? Math.max(0, Math.ceil((status.retryAt - now) / 1000)) : null;

  return (
    <div className="mcp-card__summary">
      <div className="mcp-card__row">
        <input
          type="checkbox"
          role="switch"
          className="switch"
          checked={s.enabled}
          aria-disabled={busy === "enable" || undefined}
          aria-label={t("mcp.enable", { name: s.name })}
          onChange={(e) => void run("enable", () => client.mcp.setEnabled(s.id, e.target.checked))}
          data-testid="mcp-enabled"
        />
        <span className="mcp-card__name">{s.name}</span>
        <span className="badge" title={t(`mcp.transport.${s.transport}Help`, { defaultValue: "" })}>
          {t(`mcp.transport.${s.transport}`, { defaultValue: s.transport })}
        </span>
        {s.transport === "stdio" && s.sandbox?.enabled && (
          <span className="badge badge--ok" title={t("mcp.sandboxedHelp")} data-testid="mcp-sandboxed">
            {t("mcp.sandboxed")}
          </span>
        )}
        <McpStatusBadge status={status} />
        <span className="spacer" />
        <button type="button" className="btn btn--small" onClick={onEdit} disabled={s.transport === "builtin"} data-testid="mcp-edit">
          <Icon name="edit" size={14} />
          {t("mcp.edit")}
        </button>
        <button
          type="button"
          className="btn btn--small btn--danger-quiet"
          onClick={onDelete}
          disabled={s.transport === "builtin"}
          data-testid="mcp-delete"
        >
          <Icon name="trash" size={14} />
          {t("mcp.delete")}
        </button>
      </div>

      <p className="mcp-card__target">
        <code>{describeTarget(s)}</code>
      </p>
      <p className="mcp-card__facts muted">
        {[
          info && t("mcp.facts.server", { info }),
          status?.transport && status.transport !== s.transport && t("mcp.facts.speaking", { transport: t(`mcp.transport.${status.transport}`) }),
          status?.fallbackStatus ? t("mcp.facts.fallback", { status: status.fallbackStatus }) : null,
          status?.pid ? t("mcp.facts.pid", { pid: status.pid }) : null,
          status?.restarts ? t("mcp.facts.restarts", { count: status.restarts }) : null,
          status?.recorded ? t("mcp.facts.recorded") : null,
          s.cachedAt ? t("mcp.facts.tools", { count: tools.length, on: toolsOn }) : t("mcp.facts.notWarmed"),
        ]
          .filter(Boolean)
          .join(" · ")}
      </p>

      {failed && (status.error || status.state !== "needs-sign-in") && (
        <div className="mcp-card__error" data-testid="mcp-error">
          {status.error ? (
            // Its action points to this very page (or the sign-in below): leave it out.
            <ErrorView error={withoutSelfAction(status.error, signIn)} compact />
          ) : (
            <p className="mcp-card__reason">{status.reason || t("mcp.errorUnknown")}</p>
          )}
        </div>
      )}
      {status?.state === "error" && retryIn === null && (status.restarts ?? 0) > 0 && (
        <p className="mcp-card__retry muted" data-testid="mcp-gave-up">
          {t("mcp.gaveUp")}
        </p>
      )}
      {status?.state === "failed" && (
        <p className="mcp-card__retry muted" data-testid="mcp-failed-note">
          {t("mcp.failedNote")}
        </p>
      )}
      {retryIn !== null && (
        <p className="mcp-card__retry muted" role="status" data-testid="mcp-retry">
          {t("mcp.retryIn", { seconds: retryIn })}
        </p>
      )}
      {signIn && <McpSignInPanel server={s} />}
      {s.enabled === false && <p className="mcp-card__note muted">{t("mcp.disabledNote")}</p>}

      <div className="mcp-card__actions">
        <button
          type="button"
          className="btn btn--small"
          onClick={() => void run("refresh", () => client.mcp.refresh(s.id))}
          disabled={!s.enabled}
          aria-disabled={busy !== null || undefined}
          data-testid="mcp-refresh"
        >
          {busy === "refresh" ? <span className="spinner" aria-hidden="true" /> : <Icon name="refresh" size={14} />}
          {busy === "refresh" ? t("mcp.refreshing") : t("mcp.refresh")}
        </button>
        <button
          type="button"
          className="btn btn--small"
          onClick={() => void run("restart", () => client.mcp.restart(s.id))}
          disabled={!s.enabled}
          aria-disabled={busy !== null || undefined}
          data-testid="mcp-restart"
        >
          {busy === "restart" && <span className="spinner" aria-hidden="true" />}
          {busy === "restart" ? t("mcp.restarting") : t("mcp.restart")}
        </button>
        <button type="button" className="btn btn--small" onClick={() => void test()} aria-disabled={busy !== null || undefined} data-testid="mcp-test">
          {busy === "test" && <span className="spinner" aria-hidden="true" />}
          {busy === "test" ? t("mcp.testing") : t("mcp.test")}
        </button>
        <span className="spacer" />
        <button
          type="button"
          className="btn btn--small btn--quiet"
          aria-expanded={showTools}
          onClick={() => setShowTools((v) => !v)}
          data-testid="mcp-tools-toggle"
        >
          <Icon name="tool" size={14} />
          {t("mcp.toolsToggle", { count: tools.length })}
        </button>
        <button
          type="button"
          className="btn btn--small btn--quiet"
          aria-expanded={showLog}
          onClick={() => setShowLog((v) => !v)}
          data-testid="mcp-log-toggle"
        >
          <Icon name="terminal" size={14} />
          {t("mcp.logToggle")}
        </button>
        {s.transport === "stdio" && (
          <button
            type="button"
            className="btn btn--small btn--quiet"
            aria-expanded={showEnv}
            onClick={() => setShowEnv((v) => !v)}
            data-testid="mcp-env-toggle"
          >
            <Icon name="key" size={14} />
            {t("mcp.env.toggle")}
          </button>
        )}
      </div>

      {actionError && <ErrorView error={actionError} compact />}
      {report && <McpTestReportView report={report} onClose={() => setReport(null)} />}
      {showTools && <McpToolsList server={s} />}
      {showLog && <McpLogView serverId={s.id} />}
      {showEnv && <McpEnvView serverId={s.id} />}
    </div>
  );
}
