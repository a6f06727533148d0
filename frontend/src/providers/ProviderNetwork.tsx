import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { LLMHeader } from "../api";
import { Icon } from "../components/Icon";

const PROXY_CHOICES = ["system", "none", "url"] as const;

/** Which of the proxy choices a stored value is. */
function proxyChoice(proxy: string): (typeof PROXY_CHOICES)[number] {
  return proxy === "" || proxy === "system" ? "system" : proxy === "none" ? "none" : "url";
}

export interface ProviderNetworkProps {
  headers: LLMHeader[];
  proxy: string;
  onHeaders: (h: LLMHeader[]) => void;
  onProxy: (p: string) => void;
}

/**
 * A provider's connection: custom headers (a secret one's value is sent once and kept in
 * the key store, like the API key) and its proxy. Closed until opened, or open when the
 * provider already has some.
 */
export function ProviderNetwork({ headers, proxy, onHeaders, onProxy }: ProviderNetworkProps) {
  const { t } = useTranslation("settings");
  const proxyId = useId();
  const urlId = useId();
  // The choice is the form's own: clearing the proxy's address keeps "this proxy" chosen.
  const [choice, setChoice] = useState(proxyChoice(proxy));
  const set = (i: number, patch: Partial<LLMHeader>) => onHeaders(headers.map((h, j) => (j === i ? { ...h, ...patch } : h)));
  return (
    <details className="provider-network" open={headers.length > 0 || choice !== "system"} data-testid="provider-network">
      <summary>{t("providers.network.title")}</summary>
      <div className="provider-network__body">
        <label htmlFor={proxyId} className="field__label">
          {t("providers.network.proxy")}
        </label>
        <div className="provider-network__proxy">
          <select
            id={proxyId}
            className="input"
            value={choice}
            onChange={(e) => {
              const c = e.target.value as (typeof PROXY_CHOICES)[number];
              setChoice(c);
              onProxy(c === "url" ? "http://" : c);
            }}
            data-testid="provider-proxy"
          >
            {PROXY_CHOICES.map((c) => (
              <option key={c} value={c}>
                {t(`providers.network.proxyChoice.${c}`)}
              </option>
            ))}
          </select>
          {choice === "url" && (
            <>
              <label htmlFor={urlId} className="visually-hidden">
                {t("providers.network.proxyUrl")}
              </label>
              <input
                id={urlId}
                className="input"
                value={proxy}
                spellCheck={false}
                placeholder="http://proxy.example:8080"
                onChange={(e) => onProxy(e.target.value || "http://")}
                data-testid="provider-proxy-url"
              />
            </>
          )}
        </div>
        <p className="field__help">{t("providers.network.proxyHelp")}</p>

        <p className="field__label">{t("providers.network.headers")}</p>
        {headers.length === 0 && <p className="field__help">{t("providers.network.noHeaders")}</p>}
        <ul className="provider-network__headers">
          {headers.map((h, i) => (
            <li key={i} className="provider-network__header" data-testid="provider-header">
              <input
                className="input"
                aria-label={t("providers.network.headerName")}
                placeholder={t("providers.network.headerName")}
                value={h.name}
                spellCheck={false}
                onChange={(e) => set(i, { name: e.target.value })}
                data-testid="provider-header-name"
              />
              <input
                className="input"
                type={h.secret ? "password" : "text"}
                autoComplete="off"
                aria-label={t("providers.network.headerValue")}
                placeholder={h.secret && h.set ? t("providers.network.secretKept") : t("providers.network.headerValue")}
                value={h.value ?? ""}
                spellCheck={false}
                onChange={(e) => set(i, { value: e.target.value })}
                data-testid="provider-header-value"
              />
              <label className="check-label">
                <input type="checkbox" checked={Boolean(h.secret)} onChange={(e) => set(i, { secret: e.target.checked })} data-testid="provider-header-secret" />
                {t("providers.network.secret")}
              </label>
              <button
                type="button"
                className="icon-btn icon-btn--small"
                aria-label={t("providers.network.remove", { name: h.name || "" })}
                onClick={() => onHeaders(headers.filter((_, j) => j !== i))}
              >
                <Icon name="x" size={14} />
              </button>
            </li>
          ))}
        </ul>
        <button type="button" className="btn btn--small" onClick={() => onHeaders([...headers, { name: "", value: "" }])} data-testid="provider-header-add">
          <Icon name="plus" size={14} />
          {t("providers.network.add")}
        </button>
        <p className="field__help">{t("providers.network.headersHelp")}</p>
      </div>
    </details>
  );
}
