import { useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, useSessionList, type AppError, type Session, type SessionKind } from "../api";
import { AssistantPicker, StartNotice } from "../assistants/AssistantPicker";
import { useStartAssistant } from "../assistants/useStartAssistant";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ErrorView } from "../components/ErrorView";
import { ExportMenu } from "./ExportMenu";
import { Icon } from "../components/Icon";
import { useRouter } from "../shell/router";
import { useShortcut } from "../shell/shortcuts";
import { MessageHits } from "./MessageHits";
import { SessionMenu } from "./SessionMenu";
import "./find.css";

/** Case-insensitive title match (what ListSessions does for a query, applied to the live list). */
export function filterSessions(sessions: readonly Session[], query: string): Session[] {
  const q = query.trim().toLocaleLowerCase();
  if (!q) return sessions.slice();
  return sessions.filter((s) => s.title.toLocaleLowerCase().includes(q));
}

/** New chat / new task buttons: create the session and open it. */
export function NewSessionButtons() {
  const { t } = useTranslation();
  const client = useClient();
  const { navigate } = useRouter();
  const [error, setError] = useState<AppError | null>(null);
  const [busy, setBusy] = useState(false);
  const start = useStartAssistant();
  const create = async (kind: SessionKind) => {
    setBusy(true);
    setError(null);
    try {
      // An empty untitled conversation of the kind is reused instead of piling up new ones.
      const s = await client.chat.createSession({ kind, reuseEmpty: true });
      navigate({ name: "session", id: s.id });
    } catch (e) {
      setError(toAppError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="new-session">
      <div className="new-session__row">
        <button type="button" className="btn btn--primary new-session__chat" data-testid="new-chat" disabled={busy} onClick={() => void create("chat")}>
          <Icon name="plus" size={16} />
          {t("sidebar.newChat")}
        </button>
        <AssistantPicker start={start} disabled={busy} />
        <button
          type="button"
          className="btn new-session__task"
          data-testid="new-task"
          disabled={busy}
          title={t("sidebar.newTaskHelp")}
          onClick={() => void create("task")}
        >
          <Icon name="task" size={16} />
          <span>{t("sidebar.newTask")}</span>
        </button>
      </div>
      {error && <ErrorView error={error} compact />}
      <StartNotice start={start} />
    </div>
  );
}

/** The conversations, live from the `sessions` topic: search, select, rename inline, delete. */
export function SessionList() {
  const { t } = useTranslation();
  const client = useClient();
  const { route, navigate } = useRouter();
  const { data, error } = useSessionList();
  const [query, setQuery] = useState("");
  const [renaming, setRenaming] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Session | null>(null);
  const [actionError, setActionError] = useState<AppError | null>(null);
  const [archivedView, setArchivedView] = useState(false);
  const searchId = useId();
  const searchRef = useRef<HTMLInputElement>(null);
  useShortcut("search", () => {
    searchRef.current?.focus();
    searchRef.current?.select();
  });
  const all = data?.sessions ?? [];
  const shown = useMemo(() => all.filter((s) => s.archived === archivedView), [all, archivedView]);
  const archivedCount = useMemo(() => all.filter((s) => s.archived).length, [all]);
  const sessions = useMemo(() => filterSessions(shown, query), [shown, query]);
  const current = route.name === "session" ? route.id : null;

  const rename = async (s: Session, title: string) => {
    setRenaming(null);
    if (title.trim() === s.title) return;
    try {
      await client.chat.renameSession(s.id, title.trim());
    } catch (e) {
      setActionError(toAppError(e));
    }
  };

  const remove = async (s: Session) => {
    setDeleting(null);
    try {
      await client.chat.deleteSession(s.id);
      if (current === s.id) navigate({ name: "home" });
    } catch (e) {
      setActionError(toAppError(e));
    }
  };

  const act = async (fn: () => Promise<unknown>) => {
    setActionError(null);
    try {
      await fn();
    } catch (e) {
      setActionError(toAppError(e));
    }
  };

  const total = all.length;

  return (
    <div className="session-list" data-testid="session-list">
      {total > 0 && (
        <div className="session-search">
          <label htmlFor={searchId} className="visually-hidden">
            {t("sidebar.search")}
          </label>
          <Icon name="search" size={14} className="session-search__icon" />
          <input
            id={searchId}
            type="search"
            className="input session-search__input"
            placeholder={t("sidebar.search")}
            ref={searchRef}
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            data-testid="session-search"
          />
        </div>
      )}
      {error && !data && <ErrorView error={error} compact onRetry={() => void client.stores.sessionList.reload()} />}
      {actionError && <ErrorView error={actionError} compact />}
      {archivedView && (
        <div className="session-list__view">
          <h3 className="session-list__view-title">{t("find.archived")}</h3>
          <button type="button" className="btn btn--small" onClick={() => setArchivedView(false)} data-testid="archived-back">
            {t("find.backToList")}
          </button>
        </div>
      )}
      {archivedView && shown.length === 0 && <p className="session-list__none muted">{t("find.archivedEmpty")}</p>}
      {data && total === 0 && (
        <div className="empty-state empty-state--small">
          <Icon name="chat" size={22} />
          <p className="empty-state__title">{t("sidebar.sessionsEmpty")}</p>
          <p className="empty-state__hint">{t("sidebar.sessionsEmptyHint")}</p>
        </div>
      )}
      {shown.length > 0 && sessions.length === 0 && <p className="session-list__none muted">{t("sidebar.noMatch", { query })}</p>}
      <ul className="session-list__items">
        {sessions.map((s) => (
          <li
            key={s.id}
            className="session-item"
            data-testid="session-item"
            data-session-id={s.id}
            data-state={s.state}
            data-pinned={s.pinned || undefined}
            aria-current={current === s.id ? "page" : undefined}
          >
            {renaming === s.id ? (
              <RenameInput session={s} onDone={(title) => void rename(s, title)} onCancel={() => setRenaming(null)} />
            ) : (
              <>
                <button
                  type="button"
                  className="session-item__open"
                  onClick={() => navigate({ name: "session", id: s.id })}
                  onDoubleClick={() => setRenaming(s.id)}
                  onKeyDown={(e) => {
                    if (e.key === "F2") {
                      e.preventDefault();
                      setRenaming(s.id);
                    }
                  }}
                >
                  <Icon name={s.kind === "task" ? "task" : "chat"} size={15} className="session-item__icon" />
                  <span className="session-item__title">{s.title || t("sidebar.untitled")}</span>
                  {s.pinned && (
                    <span className="session-item__pin" title={t("find.pinned")} data-testid="session-pinned">
                      <Icon name="pin" size={12} />
                      <span className="visually-hidden">{t("find.pinned")}</span>
                    </span>
                  )}
                  {s.state !== "idle" && (
                    <span
                      className={`session-item__state session-item__state--${s.state}`}
                      title={t(`sidebar.state.${s.state}`)}
                      aria-label={t(`sidebar.state.${s.state}`)}
                    />
                  )}
                </button>
                <span className="session-item__actions">
                  <ExportMenu sessionId={s.id} title={s.title || t("sidebar.untitled")} />
                  <SessionMenu
                    session={s}
                    onPin={(pinned) => void act(() => client.chat.pinSession(s.id, pinned))}
                    onArchive={(archived) => void act(() => client.chat.archiveSession(s.id, archived))}
                  />
                  <button
                    type="button"
                    className="icon-btn icon-btn--small"
                    aria-label={t("sidebar.rename", { title: s.title || t("sidebar.untitled") })}
                    title={t("sidebar.renameShort")}
                    onClick={() => setRenaming(s.id)}
                    data-testid="session-rename"
                  >
                    <Icon name="edit" size={14} />
                  </button>
                  <button
                    type="button"
                    className="icon-btn icon-btn--small"
                    aria-label={t("sidebar.delete", { title: s.title || t("sidebar.untitled") })}
                    title={t("sidebar.deleteShort")}
                    onClick={() => setDeleting(s)}
                    data-testid="session-delete"
                  >
                    <Icon name="trash" size={14} />
                  </button>
                </span>
              </>
            )}
          </li>
        ))}
      </ul>
      <MessageHits query={query} onOpen={(h) => navigate({ name: "session", id: h.sessionId, message: h.messageId })} />
      {!archivedView && archivedCount > 0 && (
        <button type="button" className="btn btn--small btn--quiet session-list__archived" onClick={() => setArchivedView(true)} data-testid="archived-open">
          <Icon name="archive" size={14} />
          {t("find.archivedCount", { count: archivedCount })}
        </button>
      )}
      <ConfirmDialog
        subject={deleting}
        onCancel={() => setDeleting(null)}
        onConfirm={(session) => void remove(session)}
        title={t("sidebar.deleteTitle", { title: deleting?.title || t("sidebar.untitled") })}
        description={t("sidebar.deleteBody")}
        confirmLabel={t("sidebar.deleteShort")}
        testId="session-delete-dialog"
        confirmTestId="session-delete-confirm"
      />
    </div>
  );
}

function RenameInput({ session, onDone, onCancel }: { session: Session; onDone: (title: string) => void; onCancel: () => void }) {
  const { t } = useTranslation();
  const [value, setValue] = useState(session.title);
  const done = useRef(false);
  const finish = (fn: () => void) => {
    if (done.current) return;
    done.current = true;
    fn();
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Enter") {
      e.preventDefault();
      finish(() => onDone(value));
    } else if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      finish(onCancel);
    }
  };
  return (
    <input
      className="input session-item__rename"
      aria-label={t("sidebar.renameLabel")}
      value={value}
      autoFocus
      maxLength={120}
      onFocus={(e) => e.currentTarget.select()}
      onChange={(e) => setValue(e.target.value)}
      onKeyDown={onKey}
      onBlur={() => finish(() => onDone(value))}
      data-testid="session-rename-input"
    />
  );
}
