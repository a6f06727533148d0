import type { ReactNode } from "react";

/**
 * One labelled form control: the label (bound to the control by `htmlFor`), the control
 * and its help text. It renders the label and a cell with the rest as siblings, so it sits
 * in a two-column form grid (`.rule-form__grid`, `.form-grid`) as well as in a column.
 */
export function Field({ id, label, help, children }: { id: string; label: ReactNode; help?: ReactNode; children: ReactNode }) {
  return (
    <>
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      <div className="field__control">
        {children}
        {help && <p className="field__help">{help}</p>}
      </div>
    </>
  );
}
