import { useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, useProviders, type AppError } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useRouter } from "./router";

/** The main pane while no conversation is open. */
export function Home() {
  const { t } = useTranslation();
  const client = useClient();
  const { openSettings, navigate } = useRouter();
  const providers = useProviders();
  const [error, setError] = useState<AppError | null>(null);
  const none = providers.data !== null && providers.data.providers.length === 0;

  const start = async () => {
    setError(null);
    try {
      const s = await client.chat.createSession({ kind: "chat" });
      navigate({ name: "session", id: s.id });
    } catch (e) {
      setError(toAppError(e));
    }
  };

  return (
    <div className="home" data-testid="home">
      <div className="home__card">
        <span className="home__mark">
          <Icon name="cairn" size={40} />
        </span>
        <h1 className="home__title">{t("home.title")}</h1>
        <p className="home__tagline">{t("app.tagline")}</p>
        <p className="home__body">{none ? t("home.bodyNoProvider") : t("home.body")}</p>
        <div className="home__actions">
          {none ? (
            <button type="button" className="btn btn--primary" onClick={() => openSettings("providers")} data-testid="home-add-provider">
              <Icon name="plus" size={16} />
              {t("home.addProvider")}
            </button>
          ) : (
            <button type="button" className="btn btn--primary" onClick={() => void start()} data-testid="home-new-chat">
              <Icon name="chat" size={16} />
              {t("home.startChat")}
            </button>
          )}
          <button type="button" className="btn" onClick={() => openSettings("general")}>
            {t("home.openGeneral")}
          </button>
          <button type="button" className="btn" onClick={() => openSettings("about")}>
            {t("home.openAbout")}
          </button>
        </div>
        {error && <ErrorView error={error} compact />}
      </div>
    </div>
  );
}
