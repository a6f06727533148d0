import "@testing-library/jest-dom/vitest";
import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";

afterEach(() => {
  cleanup();
  delete document.body.dataset.ready;
  // replaceState: no hashchange event leaking into the next test
  window.history.replaceState(null, "", window.location.pathname);
  delete document.documentElement.dataset.theme;
});
