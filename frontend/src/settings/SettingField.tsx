import { useEffect, useId, useState, type KeyboardEvent, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, type AppError, type SettingSpec } from "../api";
import { ErrorView } from "../components/ErrorView";
import { humanizeKey, parseIntDraft, toDraft } from "./specs";

/** Saves one setting and folds the returned snapshot into the settings store. */
export function useSaveSetting() {
  const client = useClient();
  return async (key: string, value: unknown) => {
    const snap = await client.settings.set(key, value);
    if (snap && typeof snap === "object" && "values" in snap) client.stores.settings.offer(snap);
  };
}

/** Strings allowed to be longer than this get a multi-line editor (e.g. system prompts). */
const LONG_TEXT = 200;

/**
 * One setting rendered from its spec: select for enums, switch for bools, number and text
 * inputs (saved on Enter or when leaving the field, Esc reverts). Errors from the backend
 * (setting_invalid, …) appear under the field through ErrorView.
 */
export function SettingField({ spec, value }: { spec: SettingSpec; value: unknown }) {
  const { t } = useTranslation("settings");
  const save = useSaveSetting();
  const id = useId();
  const helpId = `${id}-help`;
  const [pending, setPending] = useState<{ value: unknown } | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  const [draft, setDraft] = useState(() => toDraft(value));
  const [editing, setEditing] = useState(false);

  useEffect(() => {
    if (!editing) setDraft(toDraft(value));
  }, [value, editing]);

  const base = `fields.${spec.key}`;
  const label = t(`${base}.label`, { defaultValue: humanizeKey(spec.key) });
  const help = t(`${base}.help`, { defaultValue: "" });
  const optionLabel = (v: string) => t(`${base}.options.${v}`, { defaultValue: v });

  const commit = async (v: unknown) => {
    setPending({ value: v });
    setError(null);
    try {
      await save(spec.key, v);
    } catch (e) {
      setError(toAppError(e));
      setDraft(toDraft(value));
    } finally {
      setPending(null);
    }
  };

  const shown = pending ? pending.value : value;
  const testId = `setting-${spec.key}`;
  const hints: string[] = [];
  if (spec.type === "int") {
    if (spec.min !== undefined && spec.max !== undefined) hints.push(t("field.range", { min: spec.min, max: spec.max }));
    else if (spec.min !== undefined) hints.push(t("field.min", { min: spec.min }));
    else if (spec.max !== undefined) hints.push(t("field.max", { max: spec.max }));
  }
  if (spec.type === "duration" && spec.minDuration && spec.maxDuration) {
    hints.push(t("field.durationRange", { min: spec.minDuration, max: spec.maxDuration }));
  }
  const isDefault = spec.default === undefined || toDraft(spec.default) === toDraft(value);
  const describedBy = help || hints.length ? helpId : undefined;
  const multiline = spec.type === "string" && (spec.maxLen ?? 0) > LONG_TEXT;

  const commitDraft = () => {
    setEditing(false);
    if (draft === toDraft(value)) return;
    void commit(spec.type === "int" ? parseIntDraft(draft) : draft);
  };
  const onTextKey = (e: KeyboardEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    const isArea = e.currentTarget instanceof HTMLTextAreaElement;
    if (e.key === "Enter" && (!isArea || e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      commitDraft();
    } else if (e.key === "Escape") {
      setDraft(toDraft(value));
      setEditing(false);
    }
  };

  let control: ReactNode;
  switch (spec.type) {
    case "enum": {
      const options = spec.enum ?? [];
      const current = toDraft(shown);
      control = (
        <select
          id={id}
          className="input select"
          data-testid={testId}
          value={current}
          aria-describedby={describedBy}
          aria-busy={pending ? true : undefined}
          onChange={(e) => void commit(e.target.value)}
        >
          {!options.includes(current) && <option value={current}>{current}</option>}
          {options.map((o) => (
            <option key={o} value={o}>
              {optionLabel(o)}
            </option>
          ))}
        </select>
      );
      break;
    }
    case "bool":
      control = (
        <input
          id={id}
          type="checkbox"
          role="switch"
          className="switch"
          data-testid={testId}
          checked={shown === true}
          aria-describedby={describedBy}
          aria-busy={pending ? true : undefined}
          onChange={(e) => void commit(e.target.checked)}
        />
      );
      break;
    case "string":
    case "int":
    default:
      control = multiline ? (
        <textarea
          id={id}
          className="input textarea"
          data-testid={testId}
          value={draft}
          rows={4}
          maxLength={spec.maxLen}
          aria-describedby={describedBy}
          aria-busy={pending ? true : undefined}
          aria-invalid={error ? true : undefined}
          onFocus={() => setEditing(true)}
          onChange={(e) => {
            setEditing(true);
            setDraft(e.target.value);
          }}
          onBlur={commitDraft}
          onKeyDown={onTextKey}
        />
      ) : (
        <input
          id={id}
          type={spec.type === "int" ? "number" : "text"}
          inputMode={spec.type === "int" ? "numeric" : undefined}
          step={spec.type === "int" ? 1 : undefined}
          min={spec.min}
          max={spec.max}
          maxLength={spec.type === "string" ? spec.maxLen : undefined}
          className="input"
          data-testid={testId}
          value={draft}
          aria-describedby={describedBy}
          aria-busy={pending ? true : undefined}
          aria-invalid={error ? true : undefined}
          onFocus={() => setEditing(true)}
          onChange={(e) => {
            setEditing(true);
            setDraft(e.target.value);
          }}
          onBlur={commitDraft}
          onKeyDown={onTextKey}
        />
      );
  }

  return (
    <div className={multiline ? "field field--stacked" : "field"} data-setting={spec.key}>
      <div className="field__text">
        <label htmlFor={id} className="field__label">
          {label}
        </label>
        {describedBy && (
          <p id={helpId} className="field__help">
            {[help, ...hints].filter(Boolean).join(" · ")}
          </p>
        )}
      </div>
      <div className="field__control">
        {control}
        <span className="field__status" aria-live="polite">
          {pending ? t("common:status.saving") : ""}
        </span>
        {!isDefault && spec.type !== "enum" && (
          <button type="button" className="link-btn" onClick={() => void commit(spec.default)}>
            {t("field.reset")}
          </button>
        )}
      </div>
      {error && (
        <div className="field__error">
          <ErrorView error={withLabel(error, spec.key, label)} compact />
        </div>
      )}
    </div>
  );
}

/** Errors about this field name it by its label rather than its key. */
function withLabel(err: AppError, key: string, label: string): AppError {
  if (err.params?.key !== key) return err;
  return { ...err, params: { ...err.params, key: label } };
}

/** A titled group of generic fields. */
export function SpecFields({
  title,
  specs,
  values,
}: {
  title?: ReactNode;
  specs: SettingSpec[];
  values: Record<string, unknown>;
}) {
  const headingId = useId();
  if (specs.length === 0) return null;
  return (
    <section className="group" aria-labelledby={title ? headingId : undefined}>
      {title && (
        <h3 id={headingId} className="group__title">
          {title}
        </h3>
      )}
      <div className="group__body">
        {specs.map((s) => (
          <SettingField key={s.key} spec={s} value={s.key in values ? values[s.key] : s.default} />
        ))}
      </div>
    </section>
  );
}
