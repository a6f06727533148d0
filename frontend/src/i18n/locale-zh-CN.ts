import chat from "./locales/zh-CN/chat.json";
import common from "./locales/zh-CN/common.json";
import errors from "./locales/zh-CN/errors.json";
import settings from "./locales/zh-CN/settings.json";
import type { LocaleBundle } from "./languages";

/** Every namespace of zh-CN, one chunk (see LOCALES). */
export default { common, settings, errors, chat } satisfies LocaleBundle;
