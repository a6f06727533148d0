import { useTranslation } from "react-i18next";
import { Visible } from "./visible";
import { useOpenExternal } from "./web";

/** The wire name of the location tool, whose display this card lays out. */
export const LOCATION_TOOL = "location_query";

/** A place as location_query's display carries it (coordinates in the answer's datum). */
export interface LocationPlace {
  name: string;
  address?: string;
  lat: number;
  lng: number;
  datum: "wgs84" | "gcj02";
  distanceM?: number;
  type?: string;
  mapUrl?: string;
  amapUrl?: string;
}

export interface LocationStep {
  text: string;
  distanceM?: number;
  durationS?: number;
  line?: string;
  from?: string;
  to?: string;
  stops?: number;
}

export interface LocationLeg {
  from: string;
  to: string;
  distanceM: number;
  durationS: number;
  steps: LocationStep[];
  stepsLeftOut?: number;
}

export interface LocationRoute {
  mode: string;
  distanceM: number;
  durationS: number;
  points: LocationPlace[];
  legs: LocationLeg[];
  mapUrl?: string;
  amapUrl?: string;
}

/** location_query's display (backend/location Display). */
export interface LocationDisplay {
  action: string;
  provider: "amap" | "google";
  providerName: string;
  datum: "wgs84" | "gcj02";
  query?: string;
  center?: LocationPlace;
  places?: LocationPlace[];
  route?: LocationRoute;
  accuracyM?: number;
  note?: string;
}

/** Whether a tool result's display is a location answer this card can lay out. */
export function isLocationDisplay(name: string | undefined, display: unknown): display is LocationDisplay {
  if (name !== LOCATION_TOOL || !display || typeof display !== "object") return false;
  const d = display as Partial<LocationDisplay>;
  return typeof d.action === "string" && typeof d.providerName === "string" && (Array.isArray(d.places) || d.places === undefined);
}

/**
 * Only the map sites' own addresses are opened: the backend builds these links from
 * coordinates, and the card checks them again so a link that is anything else is not shown.
 */
const MAP_PREFIXES = { google: "https://www.google.com/maps/", amap: "https://uri.amap.com/" } as const;

export function safeMapUrl(kind: keyof typeof MAP_PREFIXES, url: string | undefined): string | null {
  return typeof url === "string" && url.startsWith(MAP_PREFIXES[kind]) && !/[\s"'<>]/.test(url) ? url : null;
}

/** location_query's result on its tool card: the places (name, address, distance) or the route (steps, distance, duration), with links to the map. */
export function LocationResult({ display }: { display: LocationDisplay }) {
  const { t } = useTranslation("chat");
  const places = display.places ?? [];
  return (
    <div className="tool-card__section" data-testid="location-result" data-provider={display.provider}>
      <p className="tool-card__label" data-testid="location-provider">
        {display.route
          ? t("tools.location.routeBy", { name: display.providerName })
          : display.action === "locate"
            ? t("tools.location.locatedBy", { name: display.providerName })
            : t("tools.location.placesBy", { name: display.providerName, count: places.length })}
      </p>
      {display.datum === "gcj02" && <p className="muted">{t("tools.location.gcj02")}</p>}
      {display.note && (
        <p className="muted">
          <Visible text={display.note} />
        </p>
      )}
      {display.center && (
        <p className="muted" data-testid="location-center">
          {t("tools.location.around")} <Visible text={display.center.name} />
        </p>
      )}
      {display.route ? <RouteView route={display.route} /> : <PlaceList places={places} accuracyM={display.accuracyM} />}
    </div>
  );
}

function PlaceList({ places, accuracyM }: { places: LocationPlace[]; accuracyM?: number }) {
  const { t } = useTranslation("chat");
  const dist = useDistance();
  if (places.length === 0) return <p className="muted">{t("tools.location.none")}</p>;
  return (
    <ol className="location-places">
      {places.map((p, i) => (
        <li key={`${i}-${p.lat},${p.lng}`} data-testid="location-place">
          <strong>
            <Visible text={p.name} />
          </strong>
          {p.address && (
            <span className="muted">
              {" "}
              · <Visible text={p.address} />
            </span>
          )}
          {p.distanceM !== undefined && <span data-testid="location-distance"> · {dist(p.distanceM)}</span>}
          {accuracyM ? <span className="muted"> · {t("tools.location.accuracy", { distance: dist(accuracyM) })}</span> : null}
          <MapLinks google={p.mapUrl} amap={p.amapUrl} />
        </li>
      ))}
    </ol>
  );
}

function RouteView({ route }: { route: LocationRoute }) {
  const { t } = useTranslation("chat");
  const dist = useDistance();
  const dur = useDuration();
  return (
    <>
      <p data-testid="location-route-summary">
        <strong>{t(`tools.location.mode.${route.mode}`, { defaultValue: route.mode })}</strong> · {dist(route.distanceM)} · {dur(route.durationS)}
      </p>
      <MapLinks google={route.mapUrl} amap={route.amapUrl} />
      {route.legs.map((leg, i) => (
        <details key={i} open={route.legs.length === 1 || i === 0} className="location-leg" data-testid="location-leg">
          <summary>
            <Visible text={leg.from} /> → <Visible text={leg.to} /> <span className="muted">({dist(leg.distanceM)} · {dur(leg.durationS)})</span>
          </summary>
          <ol className="location-steps">
            {leg.steps.map((s, j) => (
              <li key={j} data-testid="location-step">
                {s.line ? (
                  <Visible text={t("tools.location.ride", { line: s.line, from: s.from ?? "", to: s.to ?? "", count: s.stops ?? 0 })} />
                ) : (
                  <Visible text={s.text} />
                )}
                {s.distanceM ? <span className="muted"> · {dist(s.distanceM)}</span> : null}
              </li>
            ))}
          </ol>
          {leg.stepsLeftOut ? <p className="muted">{t("tools.location.moreSteps", { count: leg.stepsLeftOut })}</p> : null}
        </details>
      ))}
    </>
  );
}

/** The links to Google Maps and Amap, opened in the user's browser, never in the app. */
function MapLinks({ google, amap }: { google?: string; amap?: string }) {
  const { t } = useTranslation("chat");
  const open = useOpenExternal();
  const links = [
    { kind: "google", url: safeMapUrl("google", google), label: t("tools.location.openGoogle") },
    { kind: "amap", url: safeMapUrl("amap", amap), label: t("tools.location.openAmap") },
  ].filter((l): l is { kind: string; url: string; label: string } => l.url !== null);
  if (links.length === 0) return null;
  return (
    <span className="location-links">
      {links.map((l) => (
        <a key={l.kind} href={l.url} target="_blank" rel="noreferrer noopener" onClick={(e) => open(e, l.url)} data-testid={`location-link-${l.kind}`}>
          {l.label}
        </a>
      ))}
    </span>
  );
}

function useDistance(): (m: number) => string {
  const { t } = useTranslation("chat");
  return (m) => (m >= 1000 ? t("tools.location.km", { n: (m / 1000).toFixed(1) }) : t("tools.location.m", { n: Math.round(m) }));
}

function useDuration(): (s: number) => string {
  const { t } = useTranslation("chat");
  return (s) => {
    let h = Math.floor(s / 3600);
    let m = Math.round((s % 3600) / 60);
    if (m === 60) {
      h += 1;
      m = 0;
    }
    return h > 0 ? t("tools.location.hours", { h, m }) : t("tools.location.minutes", { m: Math.max(m, 1) });
  };
}
