import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, useSessionList, type AppError } from "../api";
import { Dialog } from "../components/Dialog";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useRouter } from "./router";
import "./shortcuts.css";
import { SHORTCUTS, announceShortcut, keyLabel, matchShortcut, type ShortcutId } from "./shortcuts";

/** Every shortcut with its keys: in the `?` dialog and in Settings → General. */
export function ShortcutList() {
  const { t } = useTranslation();
  return (
    <dl className="shortcut-list" data-testid="shortcut-list">
      {SHORTCUTS.map((s) => (
        <div key={s.id} className="shortcut-list__row" data-shortcut={s.id}>
          <dt>{t(`shortcuts.${s.id}`)}</dt>
          <dd>
            {s.keys.map((combo, i) => (
              <span key={i} className="shortcut-list__combo">
                {i > 0 && <span className="shortcut-list__or">{t("shortcuts.or")}</span>}
                {combo.map((k) => (
                  <kbd key={k}>{keyLabel(k)}</kbd>
                ))}
              </span>
            ))}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** Listens for the global shortcuts while no dialog is open and carries them out. */
export function ShortcutsHost() {
  const { t } = useTranslation();
  const client = useClient();
  const { route, navigate } = useRouter();
  const sessions = useSessionList().data?.sessions;
  const [helpOpen, setHelpOpen] = useState(false);
  const [error, setError] = useState<AppError | null>(null);
  const act = useRef<(id: ShortcutId) => void>(() => {});

  act.current = (id) => {
    switch (id) {
      case "newChat":
        setError(null);
        client.chat.createSession({ kind: "chat", reuseEmpty: true }).then(
          (s) => navigate({ name: "session", id: s.id }),
          (e: unknown) => setError(toAppError(e)),
        );
        return;
      case "settings":
        navigate({ name: "settings", section: route.name === "settings" ? route.section : "general" });
        return;
      case "nextChat":
      case "prevChat": {
        const list = (sessions ?? []).filter((s) => !s.archived);
        if (list.length === 0) return;
        const at = route.name === "session" ? list.findIndex((s) => s.id === route.id) : -1;
        const step = id === "nextChat" ? 1 : -1;
        const next = at < 0 ? (step > 0 ? 0 : list.length - 1) : (at + step + list.length) % list.length;
        navigate({ name: "session", id: list[next]!.id });
        return;
      }
      case "help":
        setHelpOpen(true);
        return;
      default:
        announceShortcut(id);
    }
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.isComposing || document.querySelector('[aria-modal="true"]')) return;
      const id = matchShortcut(e);
      if (!id) return;
      if (id !== "stop") e.preventDefault();
      act.current(id);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  return (
    <>
      {error && (
        <div className="shortcut-error" role="alert">
          <ErrorView error={error} compact />
          <button type="button" className="icon-btn icon-btn--small" aria-label={t("actions.close")} onClick={() => setError(null)}>
            <Icon name="x" size={14} />
          </button>
        </div>
      )}
      <Dialog open={helpOpen} onClose={() => setHelpOpen(false)} title={t("shortcuts.title")} testId="shortcuts-dialog">
        <ShortcutList />
      </Dialog>
    </>
  );
}
