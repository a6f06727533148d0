import chat from "./locales/en/chat.json";
import common from "./locales/en/common.json";
import errors from "./locales/en/errors.json";
import settings from "./locales/en/settings.json";
import type { LocaleBundle } from "./languages";

/** Every namespace of en, one chunk (see LOCALES). */
export default { common, settings, errors, chat } satisfies LocaleBundle;
