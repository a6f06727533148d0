import { useTranslation } from "react-i18next";
import type { Assistant } from "../api";

/**
 * An assistant's name and description as the window shows them: a built-in one's in the
 * window's language (its id names it in the locale files), a user's as written.
 */
export function useAssistantText() {
  const { t } = useTranslation("settings");
  return {
    name: (a: Pick<Assistant, "id" | "name" | "builtin">) => (a.builtin ? t(`assistants.builtin.${a.id}.name`, { defaultValue: a.name }) : a.name),
    description: (a: Pick<Assistant, "id" | "description" | "builtin">) =>
      a.builtin ? t(`assistants.builtin.${a.id}.description`, { defaultValue: a.description }) : a.description,
  };
}
