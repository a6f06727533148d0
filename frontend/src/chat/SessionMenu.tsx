import { useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import type { Session } from "../api";
import { Icon } from "../components/Icon";
import { menuKeys } from "../components/menuKeys";

export interface SessionMenuProps {
  session: Session;
  onPin: (pinned: boolean) => void;
  onArchive: (archived: boolean) => void;
}

/**
 * A conversation's "more" menu: pin or unpin, archive or restore. Escape or a click
 * elsewhere closes it and focus goes back to its button; arrow keys, Home and End move
 * between items.
 */
export function SessionMenu({ session, onPin, onArchive }: SessionMenuProps) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const title = session.title || t("sidebar.untitled");

  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
    const away = (e: MouseEvent) => {
      if (!menu.current?.contains(e.target as Node) && !button.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", away);
    return () => document.removeEventListener("mousedown", away);
  }, [open]);

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const choose = (fn: () => void) => {
    close();
    fn();
  };
  const onKey = menuKeys(menu, close);

  return (
    <span className="session-menu">
      <button
        ref={button}
        type="button"
        className="icon-btn icon-btn--small"
        aria-label={t("find.more", { title })}
        title={t("find.moreShort")}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((o) => !o)}
        data-testid="session-more"
      >
        <Icon name="more" size={14} />
      </button>
      {open && (
        <div ref={menu} id={menuId} role="menu" className="menu-popup session-menu__list" onKeyDown={onKey} data-testid="session-menu">
          {!session.archived && (
            <button type="button" role="menuitem" className="menu-popup__item" onClick={() => choose(() => onPin(!session.pinned))} data-testid="session-pin">
              <Icon name="pin" size={14} />
              {session.pinned ? t("find.unpin") : t("find.pin")}
            </button>
          )}
          <button
            type="button"
            role="menuitem"
            className="menu-popup__item"
            onClick={() => choose(() => onArchive(!session.archived))}
            data-testid="session-archive"
          >
            <Icon name="archive" size={14} />
            {session.archived ? t("find.restore") : t("find.archive")}
          </button>
        </div>
      )}
    </span>
  );
}
