import { memo, useMemo, useState, type KeyboardEvent } from "react";
import { useTranslation } from "react-i18next";
import type { Message } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { groupParts } from "../tools/model";
import { ToolCard } from "../tools/ToolCard";
import { copyText } from "../components/clipboard";
import { ReasoningPart, StatusPart, TextPart } from "./parts";
import { AttachmentChip } from "./Attachments";
import { citationTables, type CitationTable } from "./citations";
import { UsageLine } from "./Usage";

export interface MessageActions {
  /** Answer the last user message again (last assistant message, session idle). */
  onRegenerate?: () => void;
  /** Send a new version of a user message and answer it. Resolves true when it was sent. */
  onEdit?: (messageId: string, text: string) => Promise<boolean>;
  /** Show another version of a message (one of its siblingIds). */
  onSelectVersion?: (messageId: string) => void;
}

export interface MessageViewProps extends MessageActions {
  message: Message;
  /** It is the last message of the session. */
  last: boolean;
  /** The session is idle (actions that start an answer are allowed). */
  idle: boolean;
  /** What editing does to later messages ("branch": they stay on the old version's branch). */
  editMode: string;
  /** The latest search of the answers before this one, for citations of a follow-up. */
  citationsBefore?: CitationTable | null;
}

/** Text of a message (its text parts) for copy and edit. */
export function messageText(m: Message): string {
  return (m.parts ?? [])
    .filter((p) => p.type === "text")
    .map((p) => p.text ?? "")
    .join("\n\n");
}

export const MessageView = memo(function MessageView(props: MessageViewProps) {
  return props.message.role === "user" ? <UserMessage {...props} /> : <AssistantMessage {...props} />;
});

/**
 * "2 / 3" with previous and next for a message that has other versions (a regenerated
 * answer, an edited question); choosing one shows its branch. Disabled while answering.
 */
export function VersionSwitcher({ message, idle, onSelect }: { message: Message; idle: boolean; onSelect?: (id: string) => void }) {
  const { t } = useTranslation("chat");
  const ids = message.siblingIds ?? [];
  const at = ids.indexOf(message.id);
  if (ids.length < 2 || at < 0 || !onSelect) return null;
  const n = at + 1;
  const count = ids.length;
  return (
    <span className="versions" role="group" aria-label={t("message.versions")} data-testid="message-versions">
      <button
        type="button"
        className="icon-btn icon-btn--small"
        disabled={!idle || at === 0}
        title={t("message.versionPrev")}
        aria-label={t("message.versionPrev")}
        onClick={() => onSelect(ids[at - 1]!)}
        data-testid="version-prev"
      >
        <Icon name="chevronLeft" size={14} />
      </button>
      <span className="versions__count" aria-label={t("message.versionLabel", { n, count })} data-testid="version-count">
        {t("message.versionOf", { n, count })}
      </span>
      <button
        type="button"
        className="icon-btn icon-btn--small"
        disabled={!idle || at === count - 1}
        title={t("message.versionNext")}
        aria-label={t("message.versionNext")}
        onClick={() => onSelect(ids[at + 1]!)}
        data-testid="version-next"
      >
        <Icon name="chevron" size={14} />
      </button>
    </span>
  );
}

/** When a message was written: the time of day, the full date and time on hover. */
export function MessageTime({ at }: { at: number }) {
  const { i18n } = useTranslation("chat");
  if (!at) return null;
  const d = new Date(at);
  const short = new Intl.DateTimeFormat(i18n.language, { hour: "2-digit", minute: "2-digit" }).format(d);
  const full = new Intl.DateTimeFormat(i18n.language, { dateStyle: "medium", timeStyle: "short" }).format(d);
  return (
    <time className="message__time" dateTime={d.toISOString()} title={full} data-testid="message-time">
      {short}
    </time>
  );
}

function UserMessage({ message, idle, editMode, onEdit, onSelectVersion }: MessageViewProps) {
  const { t } = useTranslation("chat");
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const text = messageText(message);
  const attached = (message.parts ?? []).flatMap((p) => (p.type === "attachment" && p.attachment ? [{ key: p.id, a: p.attachment }] : []));

  const save = async () => {
    if (editing === null || !editing.trim() || !onEdit) return;
    setBusy(true);
    const ok = await onEdit(message.id, editing);
    setBusy(false);
    if (ok) setEditing(null);
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Escape") {
      e.preventDefault();
      setEditing(null);
    } else if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void save();
    }
  };

  return (
    <article className="message message--user" data-testid="message-user" data-message-id={message.id} aria-label={t("message.you")}>
      {editing !== null ? (
        <div className="message__edit">
          <label className="visually-hidden" htmlFor={`edit-${message.id}`}>
            {t("message.editLabel")}
          </label>
          <textarea
            id={`edit-${message.id}`}
            className="input textarea message__edit-input"
            value={editing}
            autoFocus
            onChange={(e) => setEditing(e.target.value)}
            onKeyDown={onKey}
            data-testid="message-edit-input"
          />
          <p className="message__edit-note" data-testid="edit-mode-note">
            <Icon name="branch" size={14} />
            {editMode === "branch" ? t("message.editBranch") : t("message.editOther", { mode: editMode })}
          </p>
          <div className="message__edit-actions">
            <button type="button" className="btn btn--small btn--quiet" onClick={() => setEditing(null)}>
              {t("common:actions.cancel")}
            </button>
            <button
              type="button"
              className="btn btn--small btn--primary"
              disabled={busy || !editing.trim() || !idle}
              onClick={() => void save()}
              data-testid="message-edit-save"
            >
              {t("message.editSend")}
            </button>
          </div>
        </div>
      ) : (
        <>
          <div className="message__user-body">
            {text ? <div className="message__bubble">{text}</div> : null}
            {attached.length ? (
              <ul className="message__attachments" aria-label={t("attach.listLabel")}>
                {attached.map(({ key, a }) => (
                  <li key={key}>
                    <AttachmentChip attachment={a} />
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
          <MessageTime at={message.createdAt} />
          <VersionSwitcher message={message} idle={idle} onSelect={onSelectVersion} />
          <div className="message__actions">
            <CopyButton text={text} />
            {onEdit && (
              <button
                type="button"
                className="icon-btn icon-btn--small"
                disabled={!idle}
                title={t("message.edit")}
                aria-label={t("message.edit")}
                onClick={() => setEditing(text)}
                data-testid="message-edit"
              >
                <Icon name="edit" size={15} />
              </button>
            )}
          </div>
        </>
      )}
    </article>
  );
}

function AssistantMessage({ message, last, idle, onRegenerate, onSelectVersion, citationsBefore }: MessageViewProps) {
  const { t } = useTranslation("chat");
  const parts = message.parts;
  const items = useMemo(() => groupParts(parts ?? []), [parts]);
  const citations = useMemo(() => citationTables(items, citationsBefore ?? null), [items, citationsBefore]);
  const live = message.status === "streaming";
  const hasStatusError = items.some((i) => i.kind === "status" && i.part.status?.kind === "error");
  const canRegenerate = last && idle && Boolean(onRegenerate);
  const retry = canRegenerate ? onRegenerate : undefined;

  return (
    <article
      className="message message--assistant"
      data-testid="message-assistant"
      data-message-id={message.id}
      data-status={message.status}
      aria-label={t("message.assistant")}
      aria-busy={live}
    >
      {items.length === 0 && live && (
        <div className="typing" aria-label={t("message.thinking")} role="status">
          <span />
          <span />
          <span />
        </div>
      )}
      {items.map((item) => {
        switch (item.kind) {
          case "text":
            return <TextPart key={item.key} part={item.part} citations={citations.get(item.key)} />;
          case "reasoning":
            return <ReasoningPart key={item.key} part={item.part} />;
          case "status":
            return <StatusPart key={item.key} part={item.part} onRetry={retry} />;
          default:
            return <ToolCard key={item.key} item={item} live={live} />;
        }
      })}
      {message.error && !hasStatusError && <ErrorView error={message.error} onRetry={retry} />}
      <footer className="message__meta">
        {message.status === "stopped" && (
          <span className="marker marker--stopped" data-testid="marker-stopped">
            <Icon name="stop" size={12} />
            {t("message.stopped")}
          </span>
        )}
        {message.status === "interrupted" && (
          <span className="marker marker--interrupted" data-testid="marker-interrupted" title={t("message.interruptedHelp")}>
            <Icon name="alert" size={12} />
            {t("message.interrupted")}
          </span>
        )}
        {!live && <VersionSwitcher message={message} idle={idle} onSelect={onSelectVersion} />}
        {message.model && <span className="message__model">{message.model}</span>}
        <MessageTime at={message.createdAt} />
        {message.usage && <UsageLine usage={message.usage} cost={message.cost} />}
        <span className="spacer" />
        {!live && (
          <span className="message__actions">
            <CopyButton text={messageText(message)} />
            {canRegenerate && (
              <button
                type="button"
                className="icon-btn icon-btn--small"
                title={t("message.regenerate")}
                aria-label={t("message.regenerate")}
                onClick={onRegenerate}
                data-testid="message-regenerate"
              >
                <Icon name="refresh" size={15} />
              </button>
            )}
          </span>
        )}
      </footer>
    </article>
  );
}

function CopyButton({ text }: { text: string }) {
  const { t } = useTranslation("chat");
  const [done, setDone] = useState(false);
  if (!text) return null;
  return (
    <button
      type="button"
      className="icon-btn icon-btn--small"
      title={done ? t("code.copied") : t("message.copy")}
      aria-label={t("message.copy")}
      onClick={async () => {
        if (await copyText(text)) {
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        }
      }}
    >
      <Icon name={done ? "check" : "copy"} size={15} />
    </button>
  );
}
