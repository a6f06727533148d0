import { useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import type { StartupFailureInfo } from "../api";
import { copyText } from "../components/clipboard";
import { ErrorView, useErrorText } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useAppliedTheme } from "../theme/theme";

export interface StartupFailureScreenProps {
  info: StartupFailureInfo;
  onQuit: () => void;
}

/**
 * The whole window when the desktop backend could not open: what went wrong (localized),
 * where the data is, and the ways out: start it differently, copy the details for a bug
 * report, or quit. Quit has the focus and is described by the error, so a screen reader
 * reads the error with it.
 */
export function StartupFailureScreen({ info, onQuit }: StartupFailureScreenProps) {
  const { t } = useTranslation();
  const textOf = useErrorText();
  const [copied, setCopied] = useState<boolean | null>(null);
  const quitRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const errorId = useId();
  const hintId = useId();
  useAppliedTheme("system");
  useEffect(() => quitRef.current?.focus(), []);

  const copy = async () => {
    const lines = [
      t("startupFailure.title"),
      textOf(info.error),
      `${info.error.code}: ${info.error.message}`,
      info.dataDir ? t("startupFailure.dataDir", { path: info.dataDir }) : "",
      info.version ? t("startupFailure.version", { version: info.version }) : "",
    ];
    setCopied(await copyText(lines.filter(Boolean).join("\n")));
  };

  return (
    <main
      className="boot boot--scroll"
      aria-labelledby={titleId}
      data-testid="startup-failure"
      data-error-code={info.error.code}
    >
      <Icon name="cairn" size={40} className="boot__mark boot__mark--still" />
      <div className="boot__error">
        <h1 id={titleId} className="boot__title">
          {t("startupFailure.title")}
        </h1>
        <div id={errorId}>
          <ErrorView error={info.error} />
        </div>
        {info.dataDir && (
          <p className="boot__detail">
            {t("startupFailure.dataDir", { path: info.dataDir })}
          </p>
        )}
        <p id={hintId} className="boot__detail">
          {t("startupFailure.hint")}
        </p>
        <div className="boot__actions">
          <button type="button" className="btn" onClick={() => void copy()} data-testid="startup-failure-copy">
            {t("startupFailure.copy")}
          </button>
          <button
            type="button"
            className="btn btn--primary"
            ref={quitRef}
            onClick={onQuit}
            aria-describedby={`${errorId} ${hintId}`}
            data-testid="startup-failure-quit"
          >
            {t("startupFailure.quit")}
          </button>
        </div>
        <p className="boot__detail" role="status">
          {copied === true ? t("startupFailure.copied") : copied === false ? t("startupFailure.copyFailed") : ""}
        </p>
      </div>
    </main>
  );
}
