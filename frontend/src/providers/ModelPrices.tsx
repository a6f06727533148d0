import { useId, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import type { Model, Provider } from "../api";
import { Icon } from "../components/Icon";
import { formatMoney } from "../chat/cost";
import { PriceDialog } from "./PriceDialog";
import "./prices.css";

/** How many models the list shows before the filter has to narrow it. */
const SHOWN = 60;

/**
 * A provider's prices per model (per million tokens): the one that applies to each and
 * where it comes from (yours, the provider's list, Cairn's editable default, or none),
 * and an edit button per model. Read from the live provider list, so a price saved here
 * or from the terminal shows at once.
 */
export function ModelPrices({ provider }: { provider: Provider }) {
  const { t, i18n } = useTranslation("settings");
  const lng = i18n.language;
  const [filter, setFilter] = useState("");
  const [editing, setEditing] = useState<string | null>(null);
  const filterId = useId();
  const models = provider.models;
  const matching = useMemo(() => {
    const q = filter.trim().toLowerCase();
    return q ? models.filter((m) => m.id.toLowerCase().includes(q)) : models;
  }, [models, filter]);
  if (models.length === 0) return null;
  const priced = models.filter((m) => m.price).length;
  const hasDefaults = models.some((m) => m.price?.source === "default");
  const asOf = models.find((m) => m.price?.asOf)?.price?.asOf ?? "";
  const money = (v: number | null | undefined, m: Model) => (v === undefined || v === null ? t("providers.prices.unknown") : formatMoney(v, m.price?.currency ?? "USD", lng));
  const current = editing === null ? undefined : models.find((m) => m.id === editing);

  return (
    <details className="model-prices" data-testid="model-prices">
      <summary className="model-prices__summary">
        <Icon name="chevron" size={12} className="model-prices__chevron" />
        {t("providers.prices.title")}
        <span className="muted">{t("providers.prices.count", { priced, count: models.length })}</span>
      </summary>
      <p className="field__help">{t("providers.prices.help")}</p>
      {hasDefaults && (
        <p className="field__help" data-testid="model-prices-defaults">
          {t("providers.prices.defaultsNote", { date: asOf })}
        </p>
      )}
      {models.length > 8 && (
        <div className="model-prices__filter">
          <label htmlFor={filterId} className="visually-hidden">
            {t("providers.prices.filter")}
          </label>
          <input id={filterId} className="input" value={filter} placeholder={t("providers.prices.filter")} onChange={(e) => setFilter(e.target.value)} />
        </div>
      )}
      <div className="models-table-wrap">
        <table className="models-table model-prices__table">
          <thead>
            <tr>
              <th scope="col">{t("providers.models.id")}</th>
              <th scope="col">{t("providers.prices.input")}</th>
              <th scope="col">{t("providers.prices.cached")}</th>
              <th scope="col">{t("providers.prices.output")}</th>
              <th scope="col">{t("providers.prices.source")}</th>
              <th scope="col">
                <span className="visually-hidden">{t("providers.models.actions")}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {matching.slice(0, SHOWN).map((m) => (
              <tr key={m.id} data-testid="price-row" data-model={m.id} data-source={m.price?.source ?? "none"}>
                <td className="models-table__id">
                  <code>{m.id}</code>
                </td>
                <td data-testid="price-input">{m.price ? money(m.price.input, m) : "—"}</td>
                <td data-testid="price-cached">{m.price ? money(m.price.cachedInput, m) : "—"}</td>
                <td data-testid="price-output">{m.price ? money(m.price.output, m) : "—"}</td>
                <td>
                  <span className={`badge${m.price?.source === "user" ? " badge--ok" : ""}`} data-testid="price-source">
                    {t(`providers.prices.from.${m.price?.source ?? "none"}`)}
                  </span>
                </td>
                <td>
                  <button
                    type="button"
                    className="btn btn--small"
                    onClick={() => setEditing(m.id)}
                    aria-label={t("providers.prices.editFor", { model: m.id })}
                    data-testid="price-edit"
                  >
                    {t("providers.prices.edit")}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {matching.length > SHOWN && <p className="muted">{t("providers.prices.more", { count: matching.length - SHOWN })}</p>}
      <PriceDialog
        open={current !== undefined}
        provider={provider}
        model={current}
        onClose={() => setEditing(null)}
      />
    </details>
  );
}
