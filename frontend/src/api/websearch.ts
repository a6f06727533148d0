import type { Transport } from "./types";
import type * as wire from "./generated";

export type SearchProviderInfo = wire.WebsearchInfo;
export type SearchAnswer = wire.WebsearchAnswer;
export type SearchResult = wire.WebsearchResult;
/** What web_fetch (parse_link) shows of a read page on its card. */
export type FetchCard = wire.WebfetchCard;

/** The setting that names the chosen provider, and the one that overrides a provider's endpoint. */
export const SEARCH_PROVIDER_KEY = "websearch.provider";
export const endpointKey = (id: string) => `websearch.endpoint.${id}`;

/** Web search: the providers Settings offers, and a real test search through one of them. */
export function websearchApi(t: Transport) {
  return {
    /** Every provider: name, its key's secret name, default endpoint, whether it reads pages. */
    providers: async (): Promise<SearchProviderInfo[]> => (await t.call<SearchProviderInfo[] | null>("ListSearchProviders")) ?? [],
    /** One search through provider with its saved key and endpoint, past the cache; "" searches "Cairn". */
    test: (provider: string, query: string) => t.call<SearchAnswer>("TestWebSearch", provider, query),
  };
}

export type WebsearchApi = ReturnType<typeof websearchApi>;

/** The host of a result's address for display, or the address itself. */
export function resultHost(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return url;
  }
}
