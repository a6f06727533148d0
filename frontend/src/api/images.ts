import type { Transport } from "./types";
import type * as wire from "./generated";

export type RemoteImage = wire.RemoteImage;

/** The setting that lists the hosts whose images load without a click. */
export const IMAGE_HOSTS_KEY = "chat.imageHosts";

/** How many fetched images a window keeps, so that a re-render or a second view does not fetch again. */
const CACHE_SIZE = 64;

/**
 * Remote images of answers and tool results: the window never loads them itself (its
 * Content-Security-Policy forbids it); the backend fetches one when the user asks, from
 * public internet addresses only.
 */
export function imagesApi(t: Transport) {
  const cache = new Map<string, Promise<RemoteImage>>();
  return {
    /** Fetches url through the backend (once per window while it is cached). */
    fetch(url: string): Promise<RemoteImage> {
      const hit = cache.get(url);
      if (hit) return hit;
      const p = t.call<RemoteImage>("FetchImage", url);
      cache.set(url, p);
      p.catch(() => cache.delete(url)); // a failure is tried again on the next click
      while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      return p;
    },
  };
}

export type ImagesApi = ReturnType<typeof imagesApi>;

/** The setting that turns site icons of search results and citations on (off by default). */
export const FAVICONS_KEY = "websearch.favicons";

/**
 * Site icons of web search results, fetched by the backend (only the site's /favicon.ico,
 * public addresses only) and only while the user has them on; one request per site and
 * window, a failure kept (the card shows its generic icon).
 */
export function faviconsApi(t: Transport) {
  const cache = new Map<string, Promise<string | null>>();
  return {
    /** The icon of the site pageUrl is on as a data: URL, or null (none, refused, off). */
    get(pageUrl: string): Promise<string | null> {
      const site = siteKey(pageUrl);
      if (!site) return Promise.resolve(null);
      const hit = cache.get(site);
      if (hit) return hit;
      const p = t.call<RemoteImage>("FetchFavicon", pageUrl).then(
        (img) => (img?.dataUrl?.startsWith("data:image/") ? img.dataUrl : null),
        () => null,
      );
      cache.set(site, p);
      while (cache.size > CACHE_SIZE * 4) cache.delete(cache.keys().next().value as string);
      return p;
    },
  };
}

export type FaviconsApi = ReturnType<typeof faviconsApi>;

/** scheme://host:port of an http(s) address, the cache key of its site's icon; null otherwise. */
function siteKey(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? `${u.protocol}//${u.host}` : null;
  } catch {
    return null;
  }
}

/** The hosts of the setting's value: names separated by spaces or commas, lower case. */
export function imageHosts(value: unknown): string[] {
  if (typeof value !== "string") return [];
  return [...new Set(value.split(/[\s,]+/).map((h) => h.trim().toLowerCase()).filter(Boolean))];
}

/** The setting's value with host added (unchanged when it is there already). */
export function withImageHost(value: unknown, host: string): string {
  const hosts = imageHosts(value);
  const h = host.toLowerCase();
  return (hosts.includes(h) ? hosts : [...hosts, h]).join(" ");
}

/**
 * The host of a remote image's address, or null when the address is not an absolute
 * http(s) URL: only those are offered for loading, everything else stays inert.
 */
export function remoteImageHost(src: string | undefined): string | null {
  if (!src) return null;
  try {
    const u = new URL(src);
    if ((u.protocol !== "http:" && u.protocol !== "https:") || !u.hostname || u.username || u.password) return null;
    return u.hostname.toLowerCase();
  } catch {
    return null;
  }
}
