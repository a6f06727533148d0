import { fireEvent, screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { AppError } from "../api";
import { useRouter } from "../shell/router";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { ErrorView } from "./ErrorView";

const authFailed: AppError = {
  code: "model_auth_failed",
  i18nKey: "errors.model_auth_failed",
  message: "401 Unauthorized: invalid api key sk-…",
  action: { kind: "open-settings", target: "providers" },
};

function RouteProbe() {
  const { route } = useRouter();
  return <output data-testid="route">{JSON.stringify(route)}</output>;
}

const setup = (ui: React.ReactElement, lng: "en" | "zh-CN" = "en") =>
  renderWithClient(ui, { transport: new FakeTransport(), lng, ready: null });

describe("ErrorView", () => {
  it("renders the localized text with its parameters", () => {
    setup(
      <ErrorView
        error={{ code: "model_not_found", i18nKey: "errors.model_not_found", params: { model: "gpt-9" }, message: "404" }}
      />,
    );
    const view = screen.getByTestId("error-view");
    expect(view).toHaveAttribute("role", "alert");
    expect(view).toHaveTextContent("The model gpt-9 does not exist at this provider.");
  });

  it("renders Chinese in zh-CN", () => {
    setup(<ErrorView error={{ code: "model_not_found", i18nKey: "errors.model_not_found", params: { model: "gpt-9" }, message: "404" }} />, "zh-CN");
    expect(screen.getByTestId("error-view")).toHaveTextContent("此服务商没有模型 gpt-9。");
  });

  it("offers the open-settings action and navigates there", () => {
    setup(
      <>
        <ErrorView error={authFailed} />
        <RouteProbe />
      </>,
    );
    const button = screen.getByRole("button", { name: "Open Providers settings" });
    fireEvent.click(button);
    expect(JSON.parse(screen.getByTestId("route").textContent!)).toEqual({ name: "settings", section: "providers" });
  });

  it("lets the caller handle the action instead", () => {
    const onAction = vi.fn();
    setup(<ErrorView error={authFailed} onAction={onAction} />);
    fireEvent.click(screen.getByRole("button", { name: /Providers/ }));
    expect(onAction).toHaveBeenCalledWith({ kind: "open-settings", target: "providers" });
  });

  it("shows Retry when the caller can retry", () => {
    const onRetry = vi.fn();
    setup(<ErrorView error={{ code: "model_server_error", i18nKey: "errors.model_server_error", params: { status: 502 }, message: "502", action: { kind: "retry" } }} onRetry={onRetry} />);
    expect(screen.getByTestId("error-view")).toHaveTextContent("The provider had an internal error (502). Try again.");
    fireEvent.click(screen.getByRole("button", { name: "Retry" }));
    expect(onRetry).toHaveBeenCalledOnce();
  });

  it("falls back to the raw message for a key no locale knows", () => {
    setup(<ErrorView error={{ code: "brand_new", i18nKey: "errors.brand_new_code", message: "the raw technical text" }} />);
    expect(screen.getByTestId("error-view")).toHaveTextContent("the raw technical text");
  });

  it.each([
    ["an Error", new Error("socket hang up")],
    ["a string", "socket hang up"],
  ])("renders %s through errors.unknown with its raw text", (_n, error) => {
    setup(<ErrorView error={error} />);
    expect(screen.getByTestId("error-view")).toHaveTextContent("Something went wrong: socket hang up");
  });

  it("keeps the technical message and the code behind a details disclosure", () => {
    setup(<ErrorView error={authFailed} />);
    const details = screen.getByText("Technical details").closest("details")!;
    expect(details).not.toHaveAttribute("open");
    expect(within(details).getByText(authFailed.message)).toBeInTheDocument();
    expect(within(details).getByText("model_auth_failed")).toBeInTheDocument();
  });

  it("renders without a router (no settings button then)", () => {
    renderWithClient(<ErrorView error={authFailed} />, { transport: new FakeTransport(), ready: null, router: false });
    expect(screen.queryByRole("button", { name: /Providers/ })).toBeNull();
    expect(screen.getByTestId("error-view")).toHaveTextContent("The provider rejected the API key.");
  });
});
