import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode, type RefObject } from "react";
import { createPortal } from "react-dom";
import { useTranslation } from "react-i18next";
import { Icon } from "./Icon";

export interface DialogProps {
  open: boolean;
  /** Esc, the close button and (unless disabled) a click on the backdrop call this. */
  onClose: () => void;
  title: ReactNode;
  description?: ReactNode;
  children?: ReactNode;
  /** Buttons, right-aligned under the content. */
  footer?: ReactNode;
  /** Element to focus when the dialog opens (default: first focusable inside). */
  initialFocusRef?: RefObject<HTMLElement | null>;
  /** "alertdialog" for confirmations that interrupt (approvals, deletions). */
  role?: "dialog" | "alertdialog";
  closeOnBackdrop?: boolean;
  testId?: string;
  /** "wide" for dialogs with forms or code (session settings, approvals). */
  size?: "normal" | "wide";
  /** Run before any key reaches the content or the footer (useDeliberateKeys). */
  onKeyDownCapture?: (e: KeyboardEvent<HTMLElement>) => void;
  onKeyUpCapture?: (e: KeyboardEvent<HTMLElement>) => void;
}

const FOCUSABLE =
  'a[href], area[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), iframe, [tabindex]:not([tabindex="-1"]), [contenteditable="true"]';

/** Open dialogs, innermost last: only that one keeps focus (a confirmation over an approval). */
const openDialogs: HTMLElement[] = [];

function focusables(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (el) => !el.hasAttribute("inert") && el.getAttribute("aria-hidden") !== "true",
  );
}

/**
 * A modal dialog: role=dialog + aria-modal, labelled by its title, focus moved inside and
 * trapped there (Tab / Shift+Tab wrap), Esc closes, focus returns where it was on close.
 */
export function Dialog({
  open,
  onClose,
  title,
  description,
  children,
  footer,
  initialFocusRef,
  role = "dialog",
  closeOnBackdrop = true,
  testId,
  size = "normal",
  onKeyDownCapture,
  onKeyUpCapture,
}: DialogProps) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const descId = useId();
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;

  useEffect(() => {
    if (!open) return;
    const previous = document.activeElement as HTMLElement | null;
    const root = ref.current;
    if (!root) return;
    openDialogs.push(root); // before focusing, so an outer dialog lets the focus go
    const first = initialFocusRef?.current ?? focusables(root)[0] ?? root;
    first.focus();

    // Focus that escapes (a click on the backdrop, a programmatic focus) is pulled back,
    // by the innermost dialog only, so two open dialogs never fight over it.
    const onFocusIn = (e: FocusEvent) => {
      if (openDialogs[openDialogs.length - 1] !== root) return;
      if (e.target instanceof Node && !root.contains(e.target)) {
        (focusables(root)[0] ?? root).focus();
      }
    };
    document.addEventListener("focusin", onFocusIn);
    return () => {
      document.removeEventListener("focusin", onFocusIn);
      const i = openDialogs.lastIndexOf(root);
      if (i >= 0) openDialogs.splice(i, 1);
      if (previous && typeof previous.focus === "function" && previous.isConnected) previous.focus();
    };
  }, [open, initialFocusRef]);

  if (!open) return null;

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === "Escape") {
      e.stopPropagation();
      e.preventDefault();
      onCloseRef.current();
      return;
    }
    if (e.key !== "Tab" || !ref.current) return;
    const items = focusables(ref.current);
    if (items.length === 0) {
      e.preventDefault();
      ref.current.focus();
      return;
    }
    const first = items[0]!;
    const last = items[items.length - 1]!;
    const active = document.activeElement;
    if (e.shiftKey && (active === first || active === ref.current)) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && active === last) {
      e.preventDefault();
      first.focus();
    }
  };

  return createPortal(
    <div
      className="dialog-backdrop"
      onMouseDown={(e) => {
        if (closeOnBackdrop && e.target === e.currentTarget) onCloseRef.current();
      }}
    >
      <div
        ref={ref}
        role={role}
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={description ? descId : undefined}
        tabIndex={-1}
        className={size === "wide" ? "dialog dialog--wide" : "dialog"}
        data-testid={testId}
        onKeyDown={onKeyDown}
        onKeyDownCapture={onKeyDownCapture}
        onKeyUpCapture={onKeyUpCapture}
      >
        <header className="dialog__header">
          <h2 id={titleId} className="dialog__title">
            {title}
          </h2>
          <button type="button" className="icon-btn" aria-label={t("actions.close")} onClick={() => onCloseRef.current()}>
            <Icon name="x" />
          </button>
        </header>
        {description && (
          <p id={descId} className="dialog__description">
            {description}
          </p>
        )}
        {children && <div className="dialog__content">{children}</div>}
        {footer && <footer className="dialog__footer">{footer}</footer>}
      </div>
    </div>,
    document.body,
  );
}
