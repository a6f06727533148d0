import type { ElicitationField } from "../api";

/**
 * What a form control holds: text for strings and numbers (as typed), a flag for booleans,
 * the chosen value ("" for none) for a choice, the chosen values for several.
 */
export type FormValue = string | boolean | string[];
export type FormValues = Record<string, FormValue>;

/** Why a field's value does not fit (an i18n key under chat:elicit.errors, and its params). */
export interface FieldError {
  key: string;
  params?: Record<string, unknown>;
}

/** The controls' first values: the schema's defaults, else empty (a boolean unchecked). */
export function initialValues(fields: readonly ElicitationField[]): FormValues {
  const out: FormValues = {};
  for (const f of fields) {
    const d = f.default;
    switch (f.kind) {
      case "boolean":
        out[f.name] = d === true;
        break;
      case "multi":
        out[f.name] = Array.isArray(d) ? d.map(String) : [];
        break;
      default:
        out[f.name] = d === undefined || d === null ? "" : String(d);
    }
  }
  return out;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function isEmpty(v: FormValue | undefined): boolean {
  return v === undefined || v === "" || (Array.isArray(v) && v.length === 0);
}

/** The error of one field's value, or null when it fits (the backend checks again). */
export function fieldError(f: ElicitationField, v: FormValue | undefined): FieldError | null {
  if (f.kind === "boolean") return null;
  if (isEmpty(v)) return f.required ? { key: "required" } : null;
  if (f.kind === "multi") {
    const n = Array.isArray(v) ? v.length : 0;
    if (f.minItems !== undefined && n < f.minItems) return { key: "minItems", params: { n: f.minItems } };
    if (f.maxItems !== undefined && n > f.maxItems) return { key: "maxItems", params: { n: f.maxItems } };
    return null;
  }
  const s = String(v);
  if (f.kind === "number" || f.kind === "integer") return numberError(f, s);
  if (f.kind === "enum") return (f.options ?? []).some((o) => o.value === s) ? null : { key: "choice" };
  const len = [...s].length;
  if (f.minLength !== undefined && len < f.minLength) return { key: "minLength", params: { n: f.minLength } };
  if (f.maxLength !== undefined && len > f.maxLength) return { key: "maxLength", params: { n: f.maxLength } };
  if (f.format === "email" && !EMAIL.test(s)) return { key: "email" };
  if (f.format === "uri" && !/^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$/.test(s)) return { key: "uri" };
  if (f.format === "date" && (!DATE.test(s) || Number.isNaN(Date.parse(s)))) return { key: "date" };
  if (f.format === "date-time" && Number.isNaN(Date.parse(s))) return { key: "dateTime" };
  return null;
}

function numberError(f: ElicitationField, s: string): FieldError | null {
  const n = Number(s.trim());
  if (s.trim() === "" || !Number.isFinite(n)) return { key: "number" };
  if (f.kind === "integer" && !Number.isInteger(n)) return { key: "integer" };
  if (f.minimum !== undefined && n < f.minimum) return { key: "minimum", params: { min: f.minimum } };
  if (f.maximum !== undefined && n > f.maximum) return { key: "maximum", params: { max: f.maximum } };
  return null;
}

/** Every field's error, by name; empty when the form may be sent. */
export function validate(fields: readonly ElicitationField[], values: FormValues): Record<string, FieldError> {
  const out: Record<string, FieldError> = {};
  for (const f of fields) {
    const e = fieldError(f, values[f.name]);
    if (e) out[f.name] = e;
  }
  return out;
}

/** The content an accepted form sends: typed values, empty optional fields left out. */
export function toContent(fields: readonly ElicitationField[], values: FormValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.kind === "boolean") {
      out[f.name] = v === true;
      continue;
    }
    if (isEmpty(v)) continue;
    if (f.kind === "number" || f.kind === "integer") out[f.name] = Number(String(v).trim());
    else if (f.kind === "multi") out[f.name] = [...(v as string[])];
    else out[f.name] = String(v);
  }
  return out;
}
