import { useTranslation } from "react-i18next";
import { Icon } from "./Icon";

/** The honest state of a section the backend does not support yet: no fake controls. */
export function ComingSoon({ section }: { section: string }) {
  const { t } = useTranslation("settings");
  return (
    <div className="coming-soon" data-testid={`coming-soon-${section}`}>
      <Icon name="clock" size={22} className="coming-soon__icon" />
      <div>
        <p className="coming-soon__title">
          {t("comingSoon.title")} <span className="badge">{t("comingSoon.badge")}</span>
        </p>
        <p className="coming-soon__body">{t(`comingSoon.${section}`)}</p>
      </div>
    </div>
  );
}
