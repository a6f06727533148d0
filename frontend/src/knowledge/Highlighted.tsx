import { Fragment } from "react";
import { Visible } from "../tools/visible";

/** Words (and for CJK text, the query itself) worth marking in a snippet. */
export function queryTerms(query: string): string[] {
  const words = query
    .toLowerCase()
    .split(/[\s,.;:!?"'()]+/)
    .filter((w) => w.length > 1 || /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/.test(w));
  return [...new Set(words)].sort((a, b) => b.length - a.length);
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A snippet with the query's words marked; every piece goes through Visible. */
export function Highlighted({ text, query }: { text: string; query: string }) {
  const terms = queryTerms(query);
  if (terms.length === 0) return <Visible text={text} />;
  const re = new RegExp(`(${terms.map(escape).join("|")})`, "gi");
  const parts = text.split(re);
  return (
    <>
      {parts.map((p, i) =>
        i % 2 === 1 ? (
          <mark key={i}>
            <Visible text={p} />
          </mark>
        ) : (
          <Fragment key={i}>
            <Visible text={p} />
          </Fragment>
        ),
      )}
    </>
  );
}
