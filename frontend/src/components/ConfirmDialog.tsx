import { useRef, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Dialog } from "./Dialog";

export interface ConfirmDialogProps<T> {
  /** What waits for confirmation (a session, a provider, …); null keeps the dialog closed. */
  subject: T | null;
  /** Cancel, Esc, the close button and the backdrop. */
  onCancel: () => void;
  /** The danger button, with the subject the dialog was opened for. */
  onConfirm: (subject: T) => void;
  title: ReactNode;
  description?: ReactNode;
  /** The danger button's label ("Delete", "Remove"). */
  confirmLabel: ReactNode;
  /** The confirm button is disabled meanwhile (a request in flight). */
  busy?: boolean;
  /** data-testid of the dialog. */
  testId?: string;
  /** data-testid of its confirm button. */
  confirmTestId?: string;
  /** Shown between the description and the buttons (what exactly will go). */
  children?: ReactNode;
}

/**
 * The confirmation before something is deleted: an alertdialog whose focus starts on
 * Cancel, so Enter or a stray key press never confirms by itself.
 */
export function ConfirmDialog<T>({
  subject,
  onCancel,
  onConfirm,
  title,
  description,
  confirmLabel,
  busy = false,
  testId,
  confirmTestId,
  children,
}: ConfirmDialogProps<T>) {
  const { t } = useTranslation();
  const cancelRef = useRef<HTMLButtonElement>(null);
  return (
    <Dialog
      open={subject !== null}
      role="alertdialog"
      onClose={onCancel}
      title={title}
      description={description}
      initialFocusRef={cancelRef}
      testId={testId}
      footer={
        <>
          <button ref={cancelRef} type="button" className="btn" onClick={onCancel}>
            {t("common:actions.cancel")}
          </button>
          <button
            type="button"
            className="btn btn--danger"
            disabled={busy}
            data-testid={confirmTestId}
            onClick={() => subject !== null && onConfirm(subject)}
          >
            {confirmLabel}
          </button>
        </>
      }
    >
      {children}
    </Dialog>
  );
}
