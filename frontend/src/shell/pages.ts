import type { ComponentType } from "react";
import type { SectionId } from "./routes";

/**
 * A page that lives in a chunk of its own: `load()` fetches it once (boot.tsx starts it
 * early when the window opens straight on that page), `get()` has it once loaded, so the
 * shell can render it in the same frame instead of through Suspense.
 */
export interface LazyPage<P> {
  load(): Promise<ComponentType<P>>;
  get(): ComponentType<P> | undefined;
}

function lazyPage<P>(load: () => Promise<ComponentType<P>>): LazyPage<P> {
  let promise: Promise<ComponentType<P>> | undefined;
  let component: ComponentType<P> | undefined;
  return {
    load: () =>
      (promise ??= load().then(
        (c) => {
          component = c;
          return c;
        },
        (e: unknown) => {
          promise = undefined; // a later load tries again
          throw e;
        },
      )),
    get: () => component,
  };
}

/** Settings: every section, providers, secrets, the tools panel (not needed on the home screen). */
export const settingsPage = lazyPage<{ section: SectionId }>(() =>
  import("../settings/SettingsPage").then((m) => m.SettingsPage),
);
