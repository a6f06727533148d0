import { render } from "@testing-library/react";
import type { ReactElement, ReactNode } from "react";
import { I18nextProvider } from "react-i18next";
import { ClientProvider, createClient, type ReadyInfo, type Transport } from "../api";
import type { Language } from "../i18n";
import { testI18n } from "./i18n";
import { AppInfoProvider } from "../shell/appInfo";
import { RouterProvider } from "../shell/router";
import type { Route } from "../shell/routes";

export interface Options {
  transport: Transport;
  lng?: Language;
  route?: Route;
  ready?: Promise<ReadyInfo> | null;
  /** Wrap in a RouterProvider (default true). */
  router?: boolean;
}

/** Renders UI the way main.tsx does, over a given transport. */
export function renderWithClient(ui: ReactElement, opts: Options) {
  const client = createClient(opts.transport);
  const i18n = testI18n(opts.lng ?? "en");
  const ready =
    opts.ready === undefined ? (client.system.ready("test-window") as Promise<ReadyInfo>) : opts.ready;
  ready?.catch(() => {});
  const wrap = (node: ReactNode) =>
    opts.router === false ? node : <RouterProvider initial={opts.route}>{node}</RouterProvider>;
  const result = render(
    <I18nextProvider i18n={i18n}>
      <ClientProvider client={client}>
        <AppInfoProvider ready={ready}>{wrap(ui)}</AppInfoProvider>
      </ClientProvider>
    </I18nextProvider>,
  );
  return { ...result, client, i18n };
}
