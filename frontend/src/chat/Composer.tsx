import { useEffect, useLayoutEffect, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import type { AttachmentInput } from "../api";
import { Icon } from "../components/Icon";
import { AttachButton, DraftChips, type DraftFiles } from "./Attachments";
import { pastedName } from "./attachments";
import { PromptMenu, type PromptSource } from "./PromptMenu";
import { ResourceMenu, type ResourceSource } from "./ResourceMenu";

export interface ComposerProps {
  /** An answer is running: the stop button replaces send, Esc stops. */
  busy: boolean;
  /** Sends the text and the attached files; resolves true when the backend took it (the
   * draft is cleared then). */
  onSend: (text: string, files: AttachmentInput[]) => Promise<boolean>;
  onStop: () => void;
  /** Setting chat.sendOnEnter: Enter sends (Shift+Enter = new line); off: Ctrl/⌘+Enter sends. */
  sendOnEnter: boolean;
  disabled?: boolean;
  placeholder?: string;
  /** Controls shown in the bar before the hint (the knowledge bases to search). */
  controls?: ReactNode;
  /** The MCP servers' prompts: typing "/" at the start lists them. */
  prompts?: PromptSource;
  /** The files waiting to go with the message (useDraftFiles): the attach button, drop and
   * paste add to it. Without it the composer takes text only. */
  files?: DraftFiles;
  /** The MCP servers' resources: the resource button lists them and attaches the chosen
   * one (with files only). */
  resources?: ResourceSource;
}

const MAX_HEIGHT = 240;

/**
 * The message box. Enter sends and Shift+Enter adds a line (or, with chat.sendOnEnter off,
 * Ctrl/⌘+Enter sends and Enter adds a line); Esc stops a running answer. Enter while an
 * input method is composing (Chinese, Japanese…) never sends.
 */
export function Composer({ busy, onSend, onStop, sendOnEnter, disabled, placeholder, controls, prompts, files, resources }: ComposerProps) {
  const { t } = useTranslation("chat");
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);

  // Opening a conversation (New chat included) puts the cursor here, unless the focus is
  // already somewhere in the conversation (a message a search hit opened).
  useEffect(() => {
    const active = document.activeElement;
    const inMain = active instanceof HTMLElement && active.id !== "main" && active.closest("#main") !== null;
    if (!disabled && !inMain) ref.current?.focus();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- on mount only
  }, []);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(MAX_HEIGHT, el.scrollHeight)}px`;
  }, [text]);

  // "/" then a name (no space yet) opens the prompt menu; Esc or Close dismisses it.
  const [menuOff, setMenuOff] = useState(false);
  const slash = /^\/\S*$/.exec(text);
  const menuOpen = Boolean(prompts && slash && !menuOff && !disabled);

  // The resource button toggles the resource menu; choosing one attaches it.
  const [resourceMenu, setResourceMenu] = useState(false);
  const resourceSource = files && resources && !disabled ? resources : undefined;

  const [dragging, setDragging] = useState(false);
  const hasFiles = (files?.files.length ?? 0) > 0;
  const canSend = !busy && !sending && !disabled && !files?.uploading && (text.trim() !== "" || hasFiles);

  const send = async () => {
    if (!canSend) return;
    setSending(true);
    try {
      if (await onSend(text, files?.inputs() ?? [])) {
        setText("");
        files?.clear();
      }
    } finally {
      setSending(false);
      ref.current?.focus();
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.nativeEvent.isComposing || e.keyCode === 229) return;
    if (e.key === "Escape") {
      if (menuOpen) {
        e.preventDefault();
        setMenuOff(true);
        return;
      }
      if (busy) {
        e.preventDefault();
        onStop();
      }
      return;
    }
    if (e.key !== "Enter" || e.shiftKey || e.altKey) return;
    const mod = e.ctrlKey || e.metaKey;
    if (sendOnEnter || mod) {
      e.preventDefault();
      void send();
    }
  };

  const hint = sendOnEnter ? t("composer.hintEnter") : t("composer.hintCtrlEnter");

  const hasDraggedFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes("Files");
  const drop = files
    ? {
        onDragOver: (e: DragEvent<HTMLDivElement>) => {
          if (!hasDraggedFiles(e) || disabled) return;
          e.preventDefault();
          setDragging(true);
        },
        onDragLeave: (e: DragEvent<HTMLDivElement>) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
        },
        onDrop: (e: DragEvent<HTMLDivElement>) => {
          setDragging(false);
          const list = Array.from(e.dataTransfer?.files ?? []);
          if (!list.length || disabled) return;
          e.preventDefault();
          files.add(list);
        },
      }
    : {};
  // A pasted file or screenshot is attached; pasted text stays text.
  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const list = Array.from(e.clipboardData?.files ?? []);
    if (!files || list.length === 0) return;
    e.preventDefault();
    files.add(list, (f) => pastedName(f));
  };

  return (
    <div className="composer" data-busy={busy || undefined} data-dragging={dragging || undefined} {...drop}>
      {dragging ? (
        <div className="composer__drop" aria-hidden="true">
          <Icon name="paperclip" size={18} />
          {t("attach.drop")}
        </div>
      ) : null}
      {files ? <DraftChips files={files.files} onRemove={files.remove} /> : null}
      {resourceMenu && resourceSource && files ? (
        <ResourceMenu
          source={resourceSource}
          onClose={() => {
            setResourceMenu(false);
            ref.current?.focus();
          }}
          onChoose={(r) => {
            files.attach(r.resource.title || r.resource.name || r.resource.uri, resourceSource.attach(r));
            setResourceMenu(false);
            ref.current?.focus();
          }}
        />
      ) : null}
      {menuOpen && prompts ? (
        <PromptMenu
          source={prompts}
          query={text.slice(1)}
          onClose={() => setMenuOff(true)}
          onInsert={(t) => {
            setText(t);
            setMenuOff(true);
            ref.current?.focus();
          }}
        />
      ) : null}
      <label htmlFor="composer-input" className="visually-hidden">
        {t("composer.label")}
      </label>
      <textarea
        id="composer-input"
        ref={ref}
        className="composer__input"
        data-testid="composer-input"
        rows={1}
        value={text}
        placeholder={placeholder ?? t("composer.placeholder")}
        disabled={disabled}
        aria-describedby="composer-hint"
        onChange={(e) => {
          setText(e.target.value);
          if (!e.target.value.startsWith("/")) setMenuOff(false);
        }}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
      />
      <div className="composer__bar">
        {files ? <AttachButton onFiles={(l) => files.add(l)} disabled={disabled} /> : null}
        {resourceSource ? (
          <button
            type="button"
            className="icon-btn icon-btn--small"
            title={t("resources.button")}
            aria-label={t("resources.button")}
            aria-expanded={resourceMenu}
            onClick={() => setResourceMenu((o) => !o)}
            data-testid="resource-button"
          >
            <Icon name="plug" size={16} />
          </button>
        ) : null}
        {controls}
        <span id="composer-hint" className="composer__hint">
          {busy ? t("composer.hintStop") : hint}
        </span>
        {busy ? (
          <button type="button" className="btn btn--small composer__stop" onClick={onStop} data-testid="composer-stop">
            <Icon name="stop" size={14} />
            {t("composer.stop")}
          </button>
        ) : (
          <button
            type="button"
            className="btn btn--small btn--primary composer__send"
            onClick={() => void send()}
            disabled={!canSend}
            data-testid="composer-send"
          >
            <Icon name="send" size={14} />
            {t("composer.send")}
          </button>
        )}
      </div>
    </div>
  );
}
