import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterEach } from "vitest";

// findBy*/waitFor wait up to 5 s: lazily loaded views (the conversation, settings
// sections) can take more than the default 1 s on a loaded 2-core CI machine. A test that
// fails still fails, only later.
configure({ asyncUtilTimeout: 5000 });

afterEach(() => {
  cleanup();
  delete document.body.dataset.ready;
  // replaceState: no hashchange event leaking into the next test
  window.history.replaceState(null, "", window.location.pathname);
  delete document.documentElement.dataset.theme;
});
