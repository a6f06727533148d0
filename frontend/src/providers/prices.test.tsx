import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { Provider } from "../api";
import { SettingsPage } from "../settings/SettingsPage";
import { model } from "../test/fakeChat";
import { FakeBackend } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";

const PROVIDER: Provider = {
  id: "prov1", name: "OpenAI", preset: "openai", baseUrl: "https://api.openai.com/v1", defaultModel: "gpt-4o", needsKey: true, keySet: true,
  models: [
    model("gpt-4o", { price: { input: 2.5, cachedInput: 1.25, output: 10, currency: "USD", source: "default", asOf: "2025-11" } }),
    model("listed", { listPrice: { input: 2, output: 8, currency: "USD" }, price: { input: 2, output: 8, currency: "USD", source: "provider" } }),
    model("unpriced"),
  ],
  dialect: {}, reasoningControls: {}, createdAt: 1, updatedAt: 1,
};

function open(lng: "en" | "zh-CN" = "en") {
  const backend = new FakeBackend();
  backend.chat.providers.push(structuredClone(PROVIDER));
  const r = renderWithClient(<SettingsPage section="providers" />, { transport: backend.window(), route: { name: "settings", section: "providers" }, lng });
  return { ...r, backend, user: userEvent.setup() };
}

const row = (id: string) => screen.getAllByTestId("price-row").find((r) => r.dataset.model === id)!;

describe("Settings → Providers → Prices", () => {
  it("lists each model's price and says where it comes from, defaults labelled as editable", async () => {
    const { user } = open();
    const prices = await screen.findByTestId("model-prices");
    expect(prices).toHaveTextContent("2 of 3 models priced");
    await user.click(within(prices).getByText("Prices"));
    expect(screen.getByTestId("model-prices-defaults")).toHaveTextContent("as of 2025-11. They are editable defaults");
    const gpt = within(row("gpt-4o"));
    expect(gpt.getByTestId("price-input")).toHaveTextContent("$2.50");
    expect(gpt.getByTestId("price-cached")).toHaveTextContent("$1.25");
    expect(gpt.getByTestId("price-output")).toHaveTextContent("$10.00");
    expect(gpt.getByTestId("price-source")).toHaveTextContent("Default, editable");
    expect(within(row("listed")).getByTestId("price-cached")).toHaveTextContent("unknown");
    expect(within(row("listed")).getByTestId("price-source")).toHaveTextContent("Provider's list");
    expect(within(row("unpriced")).getByTestId("price-source")).toHaveTextContent("No price");
  });

  it("edits a price: a typo is refused in the window, the saved price shows as yours, and reset goes back", async () => {
    const { user, backend } = open();
    await user.click(within(await screen.findByTestId("model-prices")).getByText("Prices"));
    await user.click(within(row("gpt-4o")).getByTestId("price-edit"));
    const dialog = screen.getByTestId("price-dialog");
    expect(dialog).toHaveTextContent("Price of gpt-4o");
    expect(dialog).toHaveTextContent("Cairn's default of 2025-11");
    expect(within(dialog).getByTestId("price-input-field")).toHaveValue("2.5");
    expect(within(dialog).getByTestId("price-cached-field")).toHaveValue("1.25");
    expect(within(dialog).getByTestId("price-output-field")).toHaveValue("10");
    expect(within(dialog).getByTestId("price-currency-field")).toHaveValue("USD");

    const input = within(dialog).getByTestId("price-input-field");
    await user.clear(input);
    await user.type(input, "two");
    await user.click(within(dialog).getByTestId("price-save"));
    expect(within(dialog).getByTestId("error-view")).toHaveTextContent('A price must be a number from 0 to 10000 per million tokens, not "two".');
    expect(backend.chat.priceCalls).toEqual([]);
    expect(input).toHaveValue("two"); // nothing typed is lost

    await user.clear(input);
    await user.type(input, "1,5"); // a decimal comma is read as a point
    await user.clear(within(dialog).getByTestId("price-cached-field"));
    await user.click(within(dialog).getByTestId("price-save"));
    await waitFor(() => expect(screen.queryByTestId("price-dialog")).toBeNull());
    expect(backend.chat.priceCalls).toEqual([{ providerId: "prov1", model: "gpt-4o", price: { input: 1.5, output: 10, currency: "USD" } }]);
    await waitFor(() => expect(within(row("gpt-4o")).getByTestId("price-source")).toHaveTextContent("Yours"));
    expect(within(row("gpt-4o")).getByTestId("price-cached")).toHaveTextContent("unknown");

    await user.click(within(row("listed")).getByTestId("price-edit"));
    expect(screen.getByTestId("price-dialog")).toHaveTextContent("the provider's list price");
    expect(screen.queryByTestId("price-reset")).toBeNull();
    await user.click(within(screen.getByTestId("price-dialog")).getByText("Cancel"));

    await user.click(within(row("gpt-4o")).getByTestId("price-edit"));
    await user.click(screen.getByTestId("price-reset"));
    await waitFor(() => expect(screen.queryByTestId("price-dialog")).toBeNull());
    expect(backend.chat.priceCalls.at(-1)).toEqual({ providerId: "prov1", model: "gpt-4o", price: null });
  });

  it("shows the backend's refusal of a currency, in Chinese", async () => {
    const { user } = open("zh-CN");
    await user.click(within(await screen.findByTestId("model-prices")).getByText("价格"));
    await user.click(within(row("unpriced")).getByTestId("price-edit"));
    const dialog = screen.getByTestId("price-dialog");
    await user.type(within(dialog).getByTestId("price-input-field"), "1");
    await user.type(within(dialog).getByTestId("price-output-field"), "2");
    const cur = within(dialog).getByTestId("price-currency-field");
    await user.clear(cur);
    await user.type(cur, "$$");
    await user.click(within(dialog).getByTestId("price-save"));
    expect(await within(dialog).findByTestId("error-view")).toHaveTextContent("币种必须是三个字母的代码");
    expect(screen.getByTestId("price-dialog")).toBeInTheDocument();
  });
});
