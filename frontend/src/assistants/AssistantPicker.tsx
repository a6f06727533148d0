import { useEffect, useId, useRef, useState, type RefObject } from "react";
import { useTranslation } from "react-i18next";
import { useAssistants } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { menuKeys } from "../components/menuKeys";
import { useRouter } from "../shell/router";
import { useAssistantText } from "./names";
import type { StartAssistant } from "./useStartAssistant";
import "./assistants.css";

/**
 * The button beside New chat that starts a conversation from an assistant: a menu of the
 * assistants not hidden, and a way to manage them. New chat itself stays one click.
 * Arrow keys move through the menu; Esc or a press elsewhere closes it and the focus goes
 * back to the button. The list loads when the menu first opens, not with the window.
 * What a start says (an error, what was missing) is shown by StartNotice.
 */
export function AssistantPicker({ start, disabled }: { start: StartAssistant; disabled?: boolean }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  return (
    <span className="assistant-picker">
      <button
        ref={button}
        type="button"
        className="btn new-session__assistant"
        aria-label={t("assistantPicker.open")}
        title={t("assistantPicker.open")}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        disabled={disabled || start.busy}
        onClick={() => setOpen((o) => !o)}
        data-testid="new-chat-assistant"
      >
        <Icon name="sparkle" size={16} />
        <Icon name="down" size={12} />
      </button>
      {open && (
        <AssistantMenu
          id={menuId}
          button={button}
          onClose={close}
          onAway={() => setOpen(false)}
          onStart={(id) => {
            close();
            void start.run(id);
          }}
        />
      )}
    </span>
  );
}

function AssistantMenu({ id, button, onClose, onAway, onStart }: { id: string; button: RefObject<HTMLButtonElement | null>; onClose: () => void; onAway: () => void; onStart: (id: string) => void }) {
  const { t } = useTranslation();
  const { data, error } = useAssistants();
  const { navigate } = useRouter();
  const text = useAssistantText();
  const menu = useRef<HTMLDivElement>(null);
  const shown = (data?.assistants ?? []).filter((a) => !a.hidden);
  const loaded = data !== null || error !== null;

  // The first item takes the focus on open, and again once the list has come.
  useEffect(() => {
    menu.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
  }, [loaded]);
  useEffect(() => {
    const away = (e: MouseEvent) => {
      if (!menu.current?.contains(e.target as Node) && !button.current?.contains(e.target as Node)) onAway();
    };
    document.addEventListener("mousedown", away);
    return () => document.removeEventListener("mousedown", away);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- onAway is a fresh closure each render
  }, [button]);

  const onKey = menuKeys(menu, onClose);

  return (
    <div ref={menu} id={id} role="menu" aria-label={t("assistantPicker.title")} aria-busy={loaded ? undefined : true} className="menu-popup assistant-picker__menu" onKeyDown={onKey} data-testid="assistant-menu">
      {shown.map((a) => (
        <button key={a.id} type="button" role="menuitem" className="menu-popup__item" data-testid="assistant-menu-item" data-id={a.id} onClick={() => onStart(a.id)}>
          <span className="assistant-icon" aria-hidden="true">
            {a.icon}
          </span>
          <span className="assistant-picker__name">{text.name(a)}</span>
        </button>
      ))}
      {loaded && shown.length === 0 && <p className="assistant-picker__empty muted">{t("assistantPicker.empty")}</p>}
      <button
        type="button"
        role="menuitem"
        className="menu-popup__item assistant-picker__manage"
        data-testid="assistant-menu-manage"
        onClick={() => {
          onAway();
          navigate({ name: "settings", section: "assistants" });
        }}
      >
        <Icon name="settings" size={14} />
        {t("assistantPicker.manage")}
      </button>
    </div>
  );
}

/** What starting from an assistant said: its error, or what it attaches that is gone. */
export function StartNotice({ start }: { start: StartAssistant }) {
  const { t } = useTranslation();
  if (start.error) return <ErrorView error={start.error} compact />;
  if (start.missing.length === 0) return null;
  return (
    <p className="assistant-picker__missing" role="status" data-testid="assistant-missing">
      {t("assistantPicker.missing", { names: start.missing.join(", ") })}
      <button type="button" className="btn btn--small" onClick={start.dismiss}>
        {t("actions.close")}
      </button>
    </p>
  );
}
