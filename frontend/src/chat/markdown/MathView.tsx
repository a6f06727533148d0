import { memo, useEffect, useState } from "react";
import { loadKatex, loaded, renderMath } from "./lazy";

/** TeX rendered by KaTeX (loaded on first use); the source shows until then. */
export const MathView = memo(function MathView({ tex, display }: { tex: string; display: boolean }) {
  const [katex, setKatex] = useState(loaded.katex);
  useEffect(() => {
    if (katex) return;
    let live = true;
    loadKatex().then(
      (k) => live && setKatex(() => k),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [katex]);

  if (!katex) {
    return display ? (
      <pre className="math math--display math--pending">
        <code>{tex}</code>
      </pre>
    ) : (
      <code className="math math--inline math--pending">{tex}</code>
    );
  }
  const html = renderMath(katex, tex, display);
  return display ? (
    <div className="math math--display" data-testid="math" dangerouslySetInnerHTML={{ __html: html }} />
  ) : (
    <span className="math math--inline" data-testid="math" dangerouslySetInnerHTML={{ __html: html }} />
  );
});
