import { createContext, useContext, useId, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { SiteIcon, useOpenExternal } from "../tools/web";
import { Visible } from "../tools/visible";
import { realHost, safeURL, samePage, type CitationSource, type CitationTable } from "./citations";
import "./citation.css";

/** The results the markers of the text being rendered refer to; null outside an answer with a search. */
export const CitationContext = createContext<CitationTable | null>(null);

/**
 * A citation marker of an answer ([1], [2, 3]): one chip per number that names a result of
 * the search before it, the marker as plain text when none does (a number the search did
 * not give, or no search at all).
 */
export function CitationMarker({ nums, raw }: { nums: number[]; raw: ReactNode }) {
  const table = useContext(CitationContext);
  const sources = nums.map((n) => table?.get(n));
  if (!table || sources.some((s) => !s)) return <>{raw}</>;
  return (
    <span className="cite-group" data-testid="citation-group">
      {sources.map((s) => (
        <CitationChip key={s!.n} n={s!.n} url={s!.url} source={s!} />
      ))}
    </span>
  );
}

/**
 * A citation written as a Markdown link ([1](https://…)): a chip for the link's own
 * address; the result's title shows only when the address is that result's, so a link
 * cannot borrow the title of another page.
 */
export function CitationLink({ n, href }: { n: number; href: string }) {
  const table = useContext(CitationContext);
  const byNumber = table?.get(n);
  const source = byNumber && samePage(byNumber.url, href) ? byNumber : [...(table?.values() ?? [])].find((s) => samePage(s.url, href));
  return <CitationChip n={n} url={href} source={source} />;
}

/**
 * One chip: the site's icon and the number, linking to the address (opened in the user's
 * browser); hovering or focusing it shows the result's title and the real host. An address
 * that is not http(s) is an inert chip with no link.
 */
export function CitationChip({ n, url, source }: { n: number; url: string; source?: CitationSource }) {
  const { t } = useTranslation("chat");
  const open = useOpenExternal();
  const tipId = useId();
  const u = safeURL(url);
  const title = source?.title?.trim() ?? "";
  if (!u) {
    return (
      <span className="cite cite--inert" data-testid="citation-inert" data-n={n} title={t("citation.unsafe")}>
        {n}
      </span>
    );
  }
  const host = realHost(u);
  return (
    <span className="cite" data-testid="citation" data-n={n} data-host={host}>
      <a
        className="cite__chip"
        href={u.href}
        target="_blank"
        rel="noreferrer noopener"
        aria-label={t("citation.label", { n, host })}
        aria-describedby={tipId}
        onClick={(e) => open(e, u.href)}
      >
        <SiteIcon url={u.href} size={11} />
        <span className="cite__n">{n}</span>
      </a>
      <span className="cite__tip" role="tooltip" id={tipId} data-testid="citation-tip">
        {title && (
          <span className="cite__title">
            <Visible text={title} />
          </span>
        )}
        <span className="cite__host">
          <Visible text={host} />
        </span>
      </span>
    </span>
  );
}
