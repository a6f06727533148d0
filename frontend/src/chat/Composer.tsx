import { useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Icon } from "../components/Icon";
import { PromptMenu, type PromptSource } from "./PromptMenu";

export interface ComposerProps {
  /** An answer is running: the stop button replaces send, Esc stops. */
  busy: boolean;
  /** Sends the text; resolves true when the backend took it (the draft is cleared then). */
  onSend: (text: string) => Promise<boolean>;
  onStop: () => void;
  /** Setting chat.sendOnEnter: Enter sends (Shift+Enter = new line); off: Ctrl/⌘+Enter sends. */
  sendOnEnter: boolean;
  disabled?: boolean;
  placeholder?: string;
  /** Controls shown in the bar before the hint (the knowledge bases to search). */
  controls?: ReactNode;
  /** The MCP servers' prompts: typing "/" at the start lists them. */
  prompts?: PromptSource;
}

const MAX_HEIGHT = 240;

/**
 * The message box. Enter sends and Shift+Enter adds a line (or, with chat.sendOnEnter off,
 * Ctrl/⌘+Enter sends and Enter adds a line); Esc stops a running answer. Enter while an
 * input method is composing (Chinese, Japanese…) never sends.
 */
export function Composer({ busy, onSend, onStop, sendOnEnter, disabled, placeholder, controls, prompts }: ComposerProps) {
  const { t } = useTranslation("chat");
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);

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

  const canSend = !busy && !sending && !disabled && text.trim() !== "";

  const send = async () => {
    if (!canSend) return;
    setSending(true);
    try {
      if (await onSend(text)) setText("");
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

  return (
    <div className="composer" data-busy={busy || undefined}>
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
      />
      <div className="composer__bar">
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
