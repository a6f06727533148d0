import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, type AppError } from "../api";
import type { ExportFormat, ExportOptions } from "../api/transfer";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useSaveFile } from "../components/download";
import "./transfer.css";

/** The words a Markdown export is written with, in the window's language. */
export function useExportLabels(): ExportOptions["labels"] {
  const { t } = useTranslation();
  return {
    user: t("transfer.md.user"),
    assistant: t("transfer.md.assistant"),
    reasoning: t("transfer.md.reasoning"),
    tool: t("transfer.md.tool"),
    arguments: t("transfer.md.arguments"),
    result: t("transfer.md.result"),
    error: t("transfer.md.error"),
    system: t("transfer.md.system"),
  };
}

const CHOICES: { id: string; format: ExportFormat; reasoning: boolean }[] = [
  { id: "md", format: "md", reasoning: false },
  { id: "mdReasoning", format: "md", reasoning: true },
  { id: "json", format: "json", reasoning: false },
];

/** A conversation's export menu: Markdown (with or without reasoning) or JSON, saved as a file. */
export function ExportMenu({ sessionId, title }: { sessionId: string; title: string }) {
  const { t } = useTranslation();
  const client = useClient();
  const save = useSaveFile();
  const labels = useExportLabels();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<AppError | null>(null);
  const root = useRef<HTMLSpanElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    root.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
    const away = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", away);
    return () => document.removeEventListener("mousedown", away);
  }, [open]);

  const run = async (format: ExportFormat, reasoning: boolean) => {
    setOpen(false);
    setError(null);
    try {
      const file = await client.transfer.exportSession(sessionId, format, { reasoning, labels });
      await save(file);
    } catch (e) {
      setError(toAppError(e));
    }
    button.current?.focus();
  };

  return (
    <span
      className="export-menu"
      ref={root}
      onKeyDown={(e) => {
        if (e.key === "Escape" && open) {
          e.stopPropagation();
          setOpen(false);
          button.current?.focus();
        } else if (open && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
          e.preventDefault();
          const items = [...(root.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? [])];
          const at = items.indexOf(document.activeElement as HTMLElement);
          const next = (at + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
          items[next]?.focus();
        }
      }}
    >
      <button
        ref={button}
        type="button"
        className="icon-btn icon-btn--small"
        aria-label={t("transfer.exportOne", { title })}
        title={t("transfer.export")}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        data-testid="session-export"
      >
        <Icon name="download" size={14} />
      </button>
      {open && (
        <span className="export-menu__list" role="menu" aria-label={t("transfer.export")} data-testid="session-export-menu">
          {CHOICES.map((c) => (
            <button
              key={c.id}
              type="button"
              role="menuitem"
              className="export-menu__item"
              onClick={() => void run(c.format, c.reasoning)}
              data-testid={`session-export-${c.id}`}
            >
              {t(`transfer.as.${c.id}`)}
            </button>
          ))}
        </span>
      )}
      {error && (
        <span className="export-menu__error">
          <ErrorView error={error} compact />
        </span>
      )}
    </span>
  );
}
