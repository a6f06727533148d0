import { useId, useRef, useState, type MutableRefObject, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import type { ElicitationAction, ElicitationField, ElicitationRequest } from "../api";
import { Dialog } from "../components/Dialog";
import { ErrorView } from "../components/ErrorView";
import { Field } from "../components/Field";
import { useDeliberateKeys, type DeliberatePress } from "../components/useDeliberateKeys";
import { initialValues, toContent, validate, type FieldError, type FormValue, type FormValues } from "./elicitForm";
import { Visible, visibleString } from "./visible";
import "./elicit.css";

export interface ElicitationDialogProps {
  request: ElicitationRequest;
  /** Sends the answer; a rejection (e.g. elicitation_already_answered) is shown in the dialog. */
  onAnswer: (action: ElicitationAction, content: Record<string, unknown>) => Promise<void>;
  /** An error from the last answer (rendered with ErrorView). */
  error?: unknown;
  /** Where the question comes from (session, queue), shown above the form. */
  context?: ReactNode;
}

/**
 * The form an MCP server asks the user to fill in (elicitation): one control per field of
 * the requested schema (text, number, checkbox, a choice, several choices) with its
 * title, description, required mark and default. Submit sends the typed values (after the
 * required and format checks), Decline says no, Cancel (Esc, the close button) dismisses.
 * Enter and Space act only when pressed deliberately (useDeliberateKeys), and Enter in a
 * text field submits nothing: typing meant for the composer when the form opened decides
 * nothing. Everything the server wrote is shown through Visible.
 */
export function ElicitationDialog({ request, onAnswer, error, context }: ElicitationDialogProps) {
  const { t } = useTranslation("chat");
  const firstRef = useRef<HTMLElement | null>(null);
  const submitRef = useRef<HTMLButtonElement>(null);
  const baseId = useId();
  const [values, setValues] = useState<FormValues>(() => initialValues(request.fields));
  const [errors, setErrors] = useState<Record<string, FieldError>>({});
  const [busy, setBusy] = useState(false);
  const keys = useDeliberateKeys(request.id, (press) => onPress(press));

  const answer = async (action: ElicitationAction) => {
    if (busy) return;
    let content: Record<string, unknown> = {};
    if (action === "accept") {
      const found = validate(request.fields, values);
      setErrors(found);
      const first = request.fields.find((f) => found[f.name]);
      if (first) {
        document.getElementById(`${baseId}-${first.name}`)?.focus();
        return;
      }
      content = toContent(request.fields, values);
    }
    setBusy(true);
    try {
      await onAnswer(action, content);
    } finally {
      setBusy(false);
    }
  };

  // A deliberate press clicks the focused button, checkbox or disclosure, as the browser
  // would have; elsewhere (a choice list) it does nothing.
  const onPress = ({ target }: DeliberatePress) => {
    const checkable = target instanceof HTMLInputElement && (target.type === "checkbox" || target.type === "radio");
    if (target.tagName === "BUTTON" || target.tagName === "SUMMARY" || target.tagName === "A" || checkable) target.click();
  };

  const set = (name: string, v: FormValue) => {
    setValues((old) => ({ ...old, [name]: v }));
    if (errors[name]) setErrors(({ [name]: _, ...rest }) => rest);
  };

  return (
    <Dialog
      open
      role="dialog"
      closeOnBackdrop={false}
      onClose={() => void answer("cancel")}
      initialFocusRef={request.fields.length > 0 ? firstRef : submitRef}
      testId="elicitation-dialog"
      size="wide"
      {...keys}
      title={t("elicit.title", { server: visibleString(request.server || request.serverId) })}
      footer={
        <>
          <button type="button" className="btn" disabled={busy} onClick={() => void answer("cancel")} data-testid="elicitation-cancel">
            {t("elicit.cancel")}
          </button>
          <span className="spacer" />
          <button type="button" className="btn btn--danger-quiet" disabled={busy} onClick={() => void answer("decline")} data-testid="elicitation-decline">
            {t("elicit.decline")}
          </button>
          <button ref={submitRef} type="button" className="btn btn--primary" disabled={busy} onClick={() => void answer("accept")} data-testid="elicitation-submit">
            {t("elicit.submit")}
          </button>
        </>
      }
    >
      <div className="elicit">
        {context}
        <p className="elicit__message visible-text" data-testid="elicitation-message">
          <Visible text={request.message} />
        </p>
        {request.fields.length > 0 && (
          <div className="elicit__grid" role="group" aria-label={t("elicit.form")}>
            {request.fields.map((f, i) => (
              <FieldControl
                key={f.name}
                id={`${baseId}-${f.name}`}
                field={f}
                value={values[f.name]}
                error={errors[f.name]}
                onChange={(v) => set(f.name, v)}
                controlRef={i === 0 ? firstRef : undefined}
              />
            ))}
          </div>
        )}
        <p className="field__help">{t("elicit.keys")}</p>
        {error ? <ErrorView error={error} compact /> : null}
      </div>
    </Dialog>
  );
}

interface FieldControlProps {
  id: string;
  field: ElicitationField;
  value: FormValue | undefined;
  error?: FieldError;
  onChange: (v: FormValue) => void;
  controlRef?: MutableRefObject<HTMLElement | null>;
}

/** One field: its label (title, else name; a required mark), control, description and error. */
function FieldControl({ id, field: f, value, error, onChange, controlRef }: FieldControlProps) {
  const { t } = useTranslation("chat");
  const errId = `${id}-error`;
  const label = (
    <>
      {visibleString(f.title || f.name)}
      {f.required && (
        <span className="elicit__required" aria-label={t("elicit.required")} title={t("elicit.required")}>
          {" *"}
        </span>
      )}
    </>
  );
  const help = (
    <>
      {f.description && <span className="visible-text">{visibleString(f.description)}</span>}
      {error && (
        <span id={errId} className="elicit__error" role="alert" data-testid={`elicitation-error-${f.name}`}>
          {t(`elicit.errors.${error.key}`, error.params)}
        </span>
      )}
    </>
  );
  const common = {
    id,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": error ? errId : undefined,
    "aria-required": f.required || undefined,
    "data-testid": `elicitation-field-${f.name}`,
    ref: (el: HTMLElement | null) => {
      if (controlRef) controlRef.current = el;
    },
  };
  return (
    <Field id={id} label={label} help={f.description || error ? help : undefined}>
      <Control field={f} value={value} onChange={onChange} common={common} />
    </Field>
  );
}

function Control({ field: f, value, onChange, common }: { field: ElicitationField; value: FormValue | undefined; onChange: (v: FormValue) => void; common: Record<string, unknown> }) {
  const { t } = useTranslation("chat");
  switch (f.kind) {
    case "boolean":
      return <input type="checkbox" {...common} checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
    case "enum":
      return (
        <select className="input select" {...common} value={String(value ?? "")} onChange={(e) => onChange(e.target.value)}>
          <option value="">{t("elicit.choose")}</option>
          {(f.options ?? []).map((o) => (
            <option key={o.value} value={o.value}>
              {visibleString(o.title || o.value)}
            </option>
          ))}
        </select>
      );
    case "multi": {
      const chosen = Array.isArray(value) ? value : [];
      return (
        <div className="elicit__choices" role="group" aria-label={visibleString(f.title || f.name)} {...common} tabIndex={-1}>
          {(f.options ?? []).map((o) => (
            <label key={o.value} className="elicit__choice">
              <input
                type="checkbox"
                checked={chosen.includes(o.value)}
                onChange={(e) => onChange(e.target.checked ? [...chosen, o.value] : chosen.filter((x) => x !== o.value))}
                data-testid={`elicitation-option-${f.name}-${o.value}`}
              />
              {visibleString(o.title || o.value)}
            </label>
          ))}
        </div>
      );
    }
    default: {
      const inputType = f.kind === "number" || f.kind === "integer" ? "text" : f.format === "date" ? "date" : f.format === "email" ? "email" : f.format === "uri" ? "url" : "text";
      const mode = f.kind === "integer" ? "numeric" : f.kind === "number" ? "decimal" : undefined;
      return <input type={inputType} inputMode={mode} className="input" {...common} value={String(value ?? "")} onChange={(e) => onChange(e.target.value)} />;
    }
  }
}
