import { memo, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Icon } from "../../components/Icon";
import { copyText } from "../../components/clipboard";
import { highlight, loadHighlighter, loaded } from "./lazy";

/** Common aliases models write after the fence that highlight.js spells otherwise. */
const ALIASES: Record<string, string> = { sh: "bash", shell: "bash", zsh: "bash", console: "bash", js: "javascript", ts: "typescript", py: "python", yml: "yaml", golang: "go", "c++": "cpp", rs: "rust" };

/** A fenced code block: language label, copy button, highlighting once the highlighter is loaded. */
export const CodeBlock = memo(function CodeBlock({ code, lang }: { code: string; lang: string }) {
  const { t } = useTranslation("chat");
  const language = ALIASES[lang.toLowerCase()] ?? lang.toLowerCase();
  const [hljs, setHljs] = useState(loaded.hljs);
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    if (hljs || !language) return;
    let live = true;
    loadHighlighter().then(
      (h) => live && setHljs(() => h),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [hljs, language]);

  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);

  const html = hljs ? highlight(hljs, code, language) : null;
  const onCopy = async () => {
    if (await copyText(code)) {
      setCopied(true);
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => setCopied(false), 1500);
    }
  };

  return (
    <div className="code-block" data-lang={language || undefined}>
      <div className="code-block__bar">
        <span className="code-block__lang">{lang || t("code.plain")}</span>
        <button type="button" className="code-block__copy" onClick={() => void onCopy()} data-testid="code-copy" aria-label={t("code.copyLabel")}>
          <Icon name={copied ? "check" : "copy"} size={14} />
          <span aria-live="polite">{copied ? t("code.copied") : t("code.copy")}</span>
        </button>
      </div>
      <pre className="code-block__pre">
        {html !== null ? (
          <code className={`hljs language-${language}`} dangerouslySetInnerHTML={{ __html: html }} />
        ) : (
          <code>{code}</code>
        )}
      </pre>
    </div>
  );
});
