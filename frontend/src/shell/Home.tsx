import { useTranslation } from "react-i18next";
import { Icon } from "../components/Icon";
import { useRouter } from "./router";

/** The main pane while no conversation is open. */
export function Home() {
  const { t } = useTranslation();
  const { openSettings } = useRouter();
  return (
    <div className="home" data-testid="home">
      <div className="home__card">
        <span className="home__mark">
          <Icon name="cairn" size={40} />
        </span>
        <h1 className="home__title">{t("home.title")}</h1>
        <p className="home__tagline">{t("app.tagline")}</p>
        <p className="home__body">{t("home.body")}</p>
        <div className="home__actions">
          <button type="button" className="btn" onClick={() => openSettings("general")}>
            {t("home.openGeneral")}
          </button>
          <button type="button" className="btn" onClick={() => openSettings("about")}>
            {t("home.openAbout")}
          </button>
        </div>
      </div>
    </div>
  );
}
