import { useId, useRef, useState, type ReactNode } from "react";
import type { AppError } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon, type IconName } from "../components/Icon";
import { useClickOutside } from "../components/useClickOutside";
import { useOptionalRouter } from "../shell/router";
import type { SectionId } from "../shell/routes";

interface ComposerPopoverProps {
  icon: IconName;
  /** the button's text (what is chosen now) */
  label: string;
  title: string;
  help: string;
  /** the data-testid of the button; the panel's is `${testId}-panel` */
  testId: string;
  /** the Settings page that manages what the panel chooses from, and its link's text */
  section: SectionId;
  manage: string;
  error: AppError | null;
  children: ReactNode;
}

/**
 * A composer control that opens a panel of choices for this conversation (knowledge
 * bases, skills): a toggle button, and a panel that Escape or a press outside closes,
 * with the last error and a link to the Settings page behind it.
 */
export function ComposerPopover({ icon, label, title, help, testId, section, manage, error, children }: ComposerPopoverProps) {
  const router = useOptionalRouter();
  const panelId = useId();
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  useClickOutside(root, open, () => setOpen(false));
  return (
    <div className="kb-attach" ref={root} onKeyDown={(e) => e.key === "Escape" && open && (e.stopPropagation(), setOpen(false))}>
      <button
        type="button"
        className="btn btn--quiet btn--small"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
        data-testid={testId}
      >
        <Icon name={icon} size={14} />
        {label}
      </button>
      {open && (
        <div id={panelId} className="kb-attach__panel" role="group" aria-label={title} data-testid={`${testId}-panel`}>
          <p className="kb-attach__title">{title}</p>
          <p className="field__help">{help}</p>
          {children}
          {error && <ErrorView error={error} compact />}
          {router && (
            <button type="button" className="btn btn--quiet btn--small" onClick={() => router.navigate({ name: "settings", section })}>
              {manage}
            </button>
          )}
        </div>
      )}
    </div>
  );
}
