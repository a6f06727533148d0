import { useEffect, useLayoutEffect, useState } from "react";

export type ThemeSetting = "system" | "light" | "dark";
export type Theme = "light" | "dark";

const DARK_QUERY = "(prefers-color-scheme: dark)";

/** The theme actually shown: the setting, or the OS preference when it is "system". */
export function resolveTheme(setting: unknown, systemPrefersDark: boolean): Theme {
  if (setting === "light" || setting === "dark") return setting;
  return systemPrefersDark ? "dark" : "light";
}

function prefersDark(): boolean {
  return typeof window !== "undefined" && typeof window.matchMedia === "function"
    ? window.matchMedia(DARK_QUERY).matches
    : false;
}

/** Follows the OS light/dark preference live. */
export function useSystemPrefersDark(): boolean {
  const [dark, setDark] = useState(prefersDark);
  useEffect(() => {
    if (typeof window.matchMedia !== "function") return;
    const mq = window.matchMedia(DARK_QUERY);
    const onChange = () => setDark(mq.matches);
    onChange();
    mq.addEventListener?.("change", onChange);
    return () => mq.removeEventListener?.("change", onChange);
  }, []);
  return dark;
}

/**
 * Applies the theme setting to <html data-theme> (the CSS variables key off it), as the
 * commit reaches the DOM, so no frame is painted in the other theme.
 */
export function useAppliedTheme(setting: unknown, root: HTMLElement = document.documentElement): Theme {
  const systemDark = useSystemPrefersDark();
  const theme = resolveTheme(setting, systemDark);
  useLayoutEffect(() => {
    root.dataset.theme = theme;
    root.style.colorScheme = theme;
  }, [root, theme]);
  return theme;
}
