import { useCallback, useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, type AppError, type AuditEntry, type AuditQuery } from "../api";
import { useSaveText } from "../components/download";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useApprovalReason } from "../tools/reason";
import { dateTime } from "./model";

/** "everything › toggleSubscriberUpdates" for an MCP server's tool; the wire name otherwise. */
function ToolName({ entry }: { entry: AuditEntry }) {
  return entry.server && entry.title ? (
    <>
      <span className="muted">{entry.server} › </span>
      <code>{entry.title}</code>
    </>
  ) : (
    <code>{entry.tool}</code>
  );
}

/**
 * Why an entry was decided, in the window's language: the approval service's own reasons
 * (permissions.audit.reasons.<code>), else a verdict's as the approval dialog says them
 * (chat approval.reasons.<code>, with a hook's own words). An entry without a code — a
 * user's typed reason, or one from before codes — and a code this build does not know
 * show the stored text.
 */
function useAuditReason(): (e: AuditEntry) => string {
  const { t, i18n } = useTranslation("settings");
  const verdictReason = useApprovalReason();
  return (e) => {
    const own = `permissions.audit.reasons.${e.reasonCode}`;
    if (e.reasonCode && i18n.exists(own, { ns: "settings" })) return t(own, e.reasonParams ?? {});
    return verdictReason({ askReason: e.reason, askReasonCode: e.reasonCode, askReasonParams: e.reasonParams });
  };
}

export const AUDIT_DECISIONS = [
  "allow_once",
  "allow_session",
  "allow_always",
  "deny",
  "auto_allow",
  "auto_deny",
  "classifier_ask",
  "cancelled",
  "interrupted",
  "resumed",
] as const;
export const AUDIT_SOURCES = ["user_temporary", "user_permanent", "user_reject", "hook", "config", "classifier"] as const;
/** Typing pauses this long before the search runs. */
const SEARCH_DELAY_MS = 300;

const decisionBadge = (d: string) =>
  d === "deny" || d === "auto_deny" ? "badge--danger" : d.startsWith("allow") || d === "auto_allow" ? "badge--ok" : "";

/**
 * The audit log of every permission decision (newest first): search, filters, paging
 * ("load more" over AuditPage.next) and export as JSON or CSV via ExportApprovalAudit.
 */
export function AuditLog() {
  const { t } = useTranslation("settings");
  const client = useClient();
  const saveText = useSaveText();
  const reasonOf = useAuditReason();
  const [text, setText] = useState("");
  const [search, setSearch] = useState("");
  const [decision, setDecision] = useState("");
  const [source, setSource] = useState("");
  const [userOnly, setUserOnly] = useState(false);
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [next, setNext] = useState<number | undefined>(undefined);
  const [busy, setBusy] = useState<"load" | "more" | "json" | "csv" | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  const [exported, setExported] = useState<{ count: number; file: string } | null>(null);
  const gen = useRef(0);
  const pages = useRef(1);
  const headingId = useId();
  const searchId = useId();

  useEffect(() => {
    const h = setTimeout(() => setSearch(text.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(h);
  }, [text]);

  const query = useCallback(
    (): AuditQuery => ({ text: search || undefined, decision: decision || undefined, source: source || undefined, userOnly: userOnly || undefined }),
    [search, decision, source, userOnly],
  );

  // Reloads always win (a newer query replaces the older one).
  const load = useCallback(async () => {
    const my = ++gen.current;
    pages.current = 1;
    setBusy("load");
    setError(null);
    try {
      const page = await client.permissions.listAudit(query());
      if (my !== gen.current) return;
      setEntries(page.entries);
      setNext(page.next || undefined);
    } catch (e) {
      if (my === gen.current) setError(toAppError(e));
    } finally {
      if (my === gen.current) setBusy(null);
    }
  }, [client, query]);

  useEffect(() => {
    void load();
  }, [load]);

  // A decision in any window means new entries: refresh while the first page is shown.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = client.permissions.watchDecisions(() => {
      if (pages.current !== 1) return;
      clearTimeout(timer);
      timer = setTimeout(() => void load(), 400);
    });
    return () => {
      clearTimeout(timer);
      stop();
    };
  }, [client, load]);

  const more = async () => {
    if (!next || busy) return;
    const my = gen.current;
    setBusy("more");
    setError(null);
    try {
      const page = await client.permissions.listAudit({ ...query(), before: next });
      if (my !== gen.current) return;
      pages.current++;
      setEntries((cur) => [...(cur ?? []), ...page.entries]);
      setNext(page.next || undefined);
    } catch (e) {
      setError(toAppError(e));
    } finally {
      setBusy(null);
    }
  };

  const exportAs = async (format: "json" | "csv") => {
    if (busy === "json" || busy === "csv" || busy === "more") return;
    setBusy(format);
    setError(null);
    setExported(null);
    try {
      const file = await client.permissions.exportAudit(format, query());
      const saved = await saveText(file.fileName, file.content, file.mimeType);
      if (saved.kind !== "cancelled") setExported({ count: file.count, file: saved.file });
    } catch (e) {
      setError(toAppError(e));
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="group audit" aria-labelledby={headingId} data-testid="approval-audit">
      <div className="group__header">
        <h3 id={headingId} className="group__title">
          {t("permissions.audit.title")}
        </h3>
        <div className="audit__exports">
          <button type="button" className="btn btn--small btn--quiet" onClick={() => void load()} aria-disabled={busy !== null || undefined} data-testid="audit-refresh">
            <Icon name="refresh" size={14} />
            {t("permissions.audit.refresh")}
          </button>
          <button type="button" className="btn btn--small" onClick={() => void exportAs("json")} aria-disabled={busy !== null || undefined} data-testid="audit-export-json">
            <Icon name="arrowDown" size={14} />
            {t("permissions.audit.exportJson")}
          </button>
          <button type="button" className="btn btn--small" onClick={() => void exportAs("csv")} aria-disabled={busy !== null || undefined} data-testid="audit-export-csv">
            <Icon name="arrowDown" size={14} />
            {t("permissions.audit.exportCsv")}
          </button>
        </div>
      </div>
      <p className="group__description">{t("permissions.audit.intro")}</p>

      <div className="audit__filters">
        <label htmlFor={searchId} className="visually-hidden">
          {t("permissions.audit.search")}
        </label>
        <div className="audit__search">
          <Icon name="search" size={15} />
          <input
            id={searchId}
            className="input"
            type="search"
            value={text}
            placeholder={t("permissions.audit.search")}
            onChange={(e) => setText(e.target.value)}
            data-testid="audit-search"
          />
        </div>
        <select className="input select" aria-label={t("permissions.audit.decision")} value={decision} onChange={(e) => setDecision(e.target.value)} data-testid="audit-decision">
          <option value="">{t("permissions.audit.anyDecision")}</option>
          {AUDIT_DECISIONS.map((d) => (
            <option key={d} value={d}>
              {t(`permissions.decision.${d}`)}
            </option>
          ))}
        </select>
        <select className="input select" aria-label={t("permissions.audit.source")} value={source} onChange={(e) => setSource(e.target.value)} data-testid="audit-source">
          <option value="">{t("permissions.audit.anySource")}</option>
          {AUDIT_SOURCES.map((s) => (
            <option key={s} value={s}>
              {t(`permissions.source.${s}`)}
            </option>
          ))}
        </select>
        <label className="check-label">
          <input type="checkbox" checked={userOnly} onChange={(e) => setUserOnly(e.target.checked)} data-testid="audit-user-only" />
          {t("permissions.audit.userOnly")}
        </label>
      </div>

      {error && <ErrorView error={error} compact onRetry={() => void load()} />}
      {exported && (
        <p className="field__help" role="status" data-testid="audit-exported">
          {t("permissions.audit.exported", { count: exported.count, file: exported.file })}
        </p>
      )}

      {entries && entries.length === 0 && (
        <p className="perm-empty muted" data-testid="audit-empty">
          {search || decision || source || userOnly ? t("permissions.audit.noMatch") : t("permissions.audit.empty")}
        </p>
      )}
      {entries && entries.length > 0 && (
        <div className="audit__table-wrap">
          <table className="audit__table" aria-busy={busy === "load" || undefined}>
            <colgroup>
              <col className="audit__col-time" />
              <col className="audit__col-session" />
              <col />
              <col className="audit__col-decision" />
              <col className="audit__col-window" />
            </colgroup>
            <thead>
              <tr>
                <th scope="col">{t("permissions.audit.col.time")}</th>
                <th scope="col">{t("permissions.audit.col.session")}</th>
                <th scope="col">{t("permissions.audit.col.call")}</th>
                <th scope="col">{t("permissions.audit.col.decision")}</th>
                <th scope="col">{t("permissions.audit.col.window")}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id} data-testid="audit-row" data-decision={e.decision} data-audit-id={e.id}>
                  <td className="audit__time">{dateTime(e.at)}</td>
                  <td className="audit__clip" title={e.sessionTitle || e.sessionId}>
                    {e.sessionTitle || (e.sessionId ? t("permissions.rule.untitled") : "—")}
                  </td>
                  <td className="audit__call">
                    <span className="audit__tool" title={e.tool}>
                      <ToolName entry={e} />
                    </span>
                    {e.argsSummary && (
                      <span className="audit__clip audit__summary" title={e.argsSummary}>
                        {e.argsSummary}
                      </span>
                    )}
                    {(e.reason || e.reasonCode) && (
                      <span className="audit__reason muted" data-testid="audit-reason">
                        {reasonOf(e)}
                      </span>
                    )}
                  </td>
                  <td>
                    <span className={`badge ${decisionBadge(e.decision)}`}>{t(`permissions.decision.${e.decision}`, { defaultValue: e.decision })}</span>
                    <span className="audit__source muted">{t(`permissions.source.${e.source}`, { defaultValue: e.source })}</span>
                  </td>
                  <td className="audit__clip muted" title={e.window}>
                    {e.window ? e.window.slice(0, 8) : "—"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && (
        <button type="button" className="btn btn--small audit__more" onClick={() => void more()} aria-disabled={busy !== null || undefined} data-testid="audit-more">
          {busy === "more" && <span className="spinner" aria-hidden="true" />}
          {t("permissions.audit.more")}
        </button>
      )}
    </section>
  );
}
