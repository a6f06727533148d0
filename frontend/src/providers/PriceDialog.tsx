import { useEffect, useId, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { useClient, type AppError, type Model, type Provider } from "../api";
import { Dialog } from "../components/Dialog";
import { ErrorView } from "../components/ErrorView";
import { Field } from "../components/Field";
import { useAction } from "../components/useAction";

/** A typed price: empty is undefined (not known), anything else a number (NaN if it is none). */
function parse(v: string): number | undefined {
  const s = v.trim().replace(",", ".");
  return s === "" ? undefined : Number(s);
}

/** The price calls of one provider. */
function usePriceActions(providerId: string) {
  const client = useClient();
  return {
    save: (model: string, input: number, output: number, cachedInput: number | undefined, currency: string) =>
      client.providers.setPrice(providerId, model, { input, output, cachedInput, currency }),
    clear: (model: string) => client.providers.clearPrice(providerId, model),
  };
}

const shown = (v: number | null | undefined) => (v === undefined || v === null ? "" : String(v));

/** The backend's own error for a price that is not a number from 0 to 10,000. */
function notANumber(v: string): AppError {
  return { code: "price_invalid", i18nKey: "errors.price_invalid", params: { value: JSON.stringify(v.trim()), max: 10000 }, message: `${v} is not a number` };
}

/**
 * Edits one model's price per million tokens: input, cached input (optional: without it
 * an answer with cached tokens shows no cost) and output, in a currency. The backend
 * checks the numbers and the code; its error is shown and nothing is lost. Going back
 * to the provider's or the default price removes the user's.
 */
export function PriceDialog({ open, provider, model, onClose }: { open: boolean; provider: Provider; model?: Model; onClose: () => void }) {
  const { t } = useTranslation("settings");
  const actions = usePriceActions(provider.id);
  const p = model?.price;
  const [input, setInput] = useState("");
  const [cached, setCached] = useState("");
  const [output, setOutput] = useState("");
  const [currency, setCurrency] = useState("USD");
  const ids = { input: useId(), cached: useId(), output: useId(), currency: useId(), form: useId() };
  useEffect(() => {
    if (!open) return;
    setInput(shown(p?.input));
    setCached(shown(p?.cachedInput));
    setOutput(shown(p?.output));
    setCurrency(p?.currency ?? "USD");
    // eslint-disable-next-line react-hooks/exhaustive-deps -- filled when the dialog opens for a model; a list update does not overwrite typing
  }, [open, model?.id]);

  const save = useAction(async () => {
    const typed = [input, output, cached];
    const [i, o, c] = typed.map(parse);
    // Text that is no number never leaves the window (JSON would send it as null, read as 0).
    const bad = typed.find((_v, k) => [i, o, c][k] !== undefined && !Number.isFinite([i, o, c][k]));
    if (bad !== undefined) throw notANumber(bad);
    await actions.save(model!.id, i ?? 0, o ?? 0, c, currency);
    onClose();
  });
  const reset = useAction(async () => {
    await actions.clear(model!.id);
    onClose();
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run();
  };
  const ready = input.trim() !== "" && output.trim() !== "";
  const busy = save.busy || reset.busy;
  const error = save.error ?? reset.error;
  const close = () => {
    save.setError(null);
    reset.setError(null);
    onClose();
  };

  return (
    <Dialog
      open={open && model !== undefined}
      onClose={close}
      title={t("providers.prices.dialogTitle", { model: model?.id ?? "" })}
      description={t("providers.prices.dialogHelp", { provider: provider.name })}
      testId="price-dialog"
      footer={
        <>
          {p?.source === "user" && (
            <button type="button" className="btn btn--quiet" disabled={busy} onClick={() => void reset.run()} data-testid="price-reset">
              {t("providers.prices.reset")}
            </button>
          )}
          <span className="spacer" />
          <button type="button" className="btn" onClick={close}>
            {t("common:actions.cancel")}
          </button>
          <button type="submit" form={ids.form} className="btn btn--primary" disabled={busy || !ready} data-testid="price-save">
            {t("common:actions.save")}
          </button>
        </>
      }
    >
      <form id={ids.form} className="price-form" onSubmit={submit} noValidate>
        {p?.source === "default" && <p className="field__help">{t("providers.prices.defaultNow", { date: p.asOf ?? "" })}</p>}
        {p?.source === "provider" && <p className="field__help">{t("providers.prices.providerNow")}</p>}
        <div className="price-form__grid">
          <Field id={ids.input} label={t("providers.prices.input")}>
            <input id={ids.input} className="input" inputMode="decimal" value={input} onChange={(e) => setInput(e.target.value)} data-testid="price-input-field" />
          </Field>
          <Field id={ids.cached} label={t("providers.prices.cached")} help={t("providers.prices.cachedHelp")}>
            <input id={ids.cached} className="input" inputMode="decimal" value={cached} onChange={(e) => setCached(e.target.value)} data-testid="price-cached-field" />
          </Field>
          <Field id={ids.output} label={t("providers.prices.output")}>
            <input id={ids.output} className="input" inputMode="decimal" value={output} onChange={(e) => setOutput(e.target.value)} data-testid="price-output-field" />
          </Field>
          <Field id={ids.currency} label={t("providers.prices.currency")} help={t("providers.prices.currencyHelp")}>
            <input
              id={ids.currency}
              className="input price-form__currency"
              value={currency}
              maxLength={3}
              spellCheck={false}
              autoCapitalize="characters"
              onChange={(e) => setCurrency(e.target.value.toUpperCase())}
              data-testid="price-currency-field"
            />
          </Field>
        </div>
        {error && <ErrorView error={error} compact />}
      </form>
    </Dialog>
  );
}
