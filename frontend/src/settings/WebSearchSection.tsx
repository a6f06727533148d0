import { useEffect, useId, useState, type FormEvent, type MouseEvent } from "react";
import { useTranslation } from "react-i18next";
import {
  endpointKey,
  resultHost,
  SEARCH_PROVIDER_KEY,
  toAppError,
  useClient,
  type AppError,
  type SearchAnswer,
  type SearchProviderInfo,
  type SettingsSnapshot,
} from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { Visible } from "../tools/visible";
import { SecretsPanel } from "./SecretsPanel";
import { SettingField, SpecFields } from "./SettingField";
import { genericSpecs } from "./specs";

/** The providers the backend offers (ListSearchProviders), loaded once per visit. */
function useSearchProviders(): SearchProviderInfo[] {
  const client = useClient();
  const [list, setList] = useState<SearchProviderInfo[]>([]);
  useEffect(() => {
    let live = true;
    client.websearch
      .providers()
      .then((l) => live && setList(l))
      .catch(() => live && setList([]));
    return () => {
      live = false;
    };
  }, [client]);
  return list;
}

/**
 * Settings → Web search: the provider (what it needs, whether it reads pages itself), its
 * endpoint, a Test that runs a real search, the fallback chain and the other settings, the
 * other providers' endpoints folded away, and the keys.
 */
export function WebSearchSection({ settings }: { settings: SettingsSnapshot }) {
  const { t } = useTranslation("settings");
  const providers = useSearchProviders();
  const specs = genericSpecs(settings.specs, "web-search");
  const value = (key: string) => (key in settings.values ? settings.values[key] : specs.find((s) => s.key === key)?.default);
  const chosen = String(value(SEARCH_PROVIDER_KEY) ?? "");
  const info = providers.find((p) => p.id === chosen);
  const providerSpec = specs.find((s) => s.key === SEARCH_PROVIDER_KEY);
  const endpointSpec = specs.find((s) => s.key === endpointKey(chosen));
  const isEndpoint = (key: string) => key.startsWith("websearch.endpoint.");
  const others = specs.filter((s) => isEndpoint(s.key) && s.key !== endpointSpec?.key);
  const rest = specs.filter((s) => s !== providerSpec && !isEndpoint(s.key));
  const headingId = useId();

  return (
    <>
      {providerSpec && (
        <section className="group" aria-labelledby={headingId} data-testid="websearch-provider">
          <h3 id={headingId} className="group__title">
            {t("webSearch.provider")}
          </h3>
          <div className="group__body">
            <SettingField spec={providerSpec} value={chosen} />
            {info && <ProviderFacts info={info} />}
            {endpointSpec && <SettingField spec={endpointSpec} value={value(endpointSpec.key)} />}
            {info && <SearchTest provider={info} />}
          </div>
        </section>
      )}
      <SpecFields specs={rest} values={settings.values} />
      {others.length > 0 && (
        <details className="group" data-testid="websearch-other-endpoints">
          <summary className="group__title">{t("webSearch.otherEndpoints")}</summary>
          <SpecFields specs={others} values={settings.values} />
        </details>
      )}
      <SecretsPanel />
    </>
  );
}

/** What the chosen provider needs and can do. */
function ProviderFacts({ info }: { info: SearchProviderInfo }) {
  const { t } = useTranslation("settings");
  const key = !info.secret ? t("webSearch.keyless") : info.keyOptional ? t("webSearch.keyOptional", { secret: info.secret }) : t("webSearch.keyNeeded", { secret: info.secret });
  return (
    <ul className="muted" data-testid="websearch-facts">
      <li>{key}</li>
      <li>{info.parseLink ? t("webSearch.readsPages", { name: info.name }) : t("webSearch.fetcherReads", { name: info.name })}</li>
      <li>{info.endpoint ? t("webSearch.defaultEndpoint", { endpoint: info.endpoint }) : t("webSearch.endpointNeeded")}</li>
    </ul>
  );
}

/** Test: one real search through the provider with what is saved, its results or its error. */
function SearchTest({ provider }: { provider: SearchProviderInfo }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const inputId = useId();
  const [query, setQuery] = useState("");
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<SearchAnswer | null>(null);
  const [error, setError] = useState<AppError | null>(null);

  useEffect(() => {
    setAnswer(null);
    setError(null);
  }, [provider.id]);

  const run = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setAnswer(null);
    setError(null);
    try {
      setAnswer(await client.websearch.test(provider.id, query));
    } catch (err) {
      setError(toAppError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="websearch-test" onSubmit={(e) => void run(e)} aria-busy={busy} data-testid="websearch-test">
      <label htmlFor={inputId}>{t("webSearch.testQuery")}</label>
      <div className="websearch-test__row">
        <input id={inputId} type="search" value={query} placeholder="Cairn" maxLength={400} onChange={(e) => setQuery(e.target.value)} />
        <button type="submit" className="btn btn--small" disabled={busy}>
          <Icon name="search" size={14} />
          {busy ? t("webSearch.testing") : t("webSearch.test", { name: provider.name })}
        </button>
      </div>
      {error && <ErrorView error={error} compact />}
      {answer && <TestResults answer={answer} />}
    </form>
  );
}

function TestResults({ answer }: { answer: SearchAnswer }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const open = (e: MouseEvent<HTMLAnchorElement>, url: string) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    const page = client.browser.prepare();
    if (!page.show(url)) page.discard();
  };
  if (answer.results.length === 0) {
    return (
      <p role="status" data-testid="websearch-test-empty">
        {t("webSearch.noResults")}
      </p>
    );
  }
  return (
    <div role="status" data-testid="websearch-test-results">
      <p>{t("webSearch.found", { count: answer.results.length })}</p>
      <ol className="websearch-results">
        {answer.results.map((r, i) => (
          <li key={`${i}-${r.url}`}>
            {/^https?:\/\//i.test(r.url) ? (
              <a href={r.url} target="_blank" rel="noreferrer noopener" onClick={(e) => open(e, r.url)}>
                <Visible text={r.title || r.url} />
              </a>
            ) : (
              <span>
                <Visible text={r.title || r.url} />
              </span>
            )}{" "}
            <span className="muted">
              <Visible text={resultHost(r.url)} />
            </span>
            {r.snippet && (
              <p className="muted">
                <Visible text={r.snippet} />
              </p>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}
