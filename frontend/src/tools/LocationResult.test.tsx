import { fireEvent, screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { Part } from "../api";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { safeMapUrl, type LocationDisplay } from "./LocationResult";
import { groupParts, type ToolItem } from "./model";
import { ToolCard } from "./ToolCard";

const places: LocationDisplay = {
  action: "search_places",
  provider: "amap",
  providerName: "Amap",
  datum: "gcj02",
  query: "咖啡",
  center: { name: "北京市朝阳区望京SOHO", lat: 39.98941, lng: 116.480881, datum: "gcj02" },
  places: [
    {
      name: "Evil\u202eCafe",
      address: "望京街1号",
      lat: 39.98,
      lng: 116.48,
      datum: "gcj02",
      distanceM: 350,
      mapUrl: "https://www.google.com/maps/search/?api=1&query=39.978%2C116.474",
      amapUrl: "https://uri.amap.com/marker?position=116.48%2C39.98",
    },
    { name: "Far Cafe", address: "酒仙桥路", lat: 39.97, lng: 116.49, datum: "gcj02", distanceM: 2450, mapUrl: "javascript:alert(1)", amapUrl: "https://evil.example/x" },
  ],
};

const route: LocationDisplay = {
  action: "get_directions",
  provider: "google",
  providerName: "Google Maps",
  datum: "wgs84",
  route: {
    mode: "transit",
    distanceM: 5300,
    durationS: 3900,
    points: [],
    mapUrl: "https://www.google.com/maps/dir/?api=1&origin=48.86%2C2.33&destination=48.85%2C2.29&travelmode=transit",
    legs: [
      {
        from: "Louvre",
        to: "Eiffel Tower",
        distanceM: 5300,
        durationS: 3900,
        steps: [
          { text: "Walk to Palais Royal", distanceM: 250, durationS: 180 },
          { text: "Bus towards Pont de l'Alma", line: "72", from: "Louvre", to: "Concorde", stops: 3, distanceM: 1800 },
        ],
        stepsLeftOut: 2,
      },
    ],
  },
};

const parts = (display: unknown): Part[] => [
  { id: "a", messageId: "m", index: 0, round: 0, type: "tool-call", state: "done", createdAt: 1, updatedAt: 1, tool: { callId: "c", name: "location_query", namespace: "location", arguments: '{"action":"search_places"}' } },
  { id: "b", messageId: "m", index: 1, round: 0, type: "tool-result", state: "done", createdAt: 1, updatedAt: 1, tool: { callId: "c", name: "location_query", content: "Amap answered", display, durationMs: 5 } },
];

function openCard(display: unknown, lng?: "en" | "zh-CN") {
  const item = groupParts(parts(display))[0] as ToolItem;
  const out = renderWithClient(<ToolCard item={item} live={false} />, { transport: new FakeTransport(), ready: null, lng });
  fireEvent.click(within(screen.getByTestId("tool-card")).getByRole("button", { expanded: false }));
  return out;
}

describe("location card", () => {
  it("lists the places with address and distance, says the datum, and links only to the map sites", () => {
    openCard(places);
    const card = screen.getByTestId("location-result");
    expect(within(card).getByTestId("location-provider")).toHaveTextContent("Amap · 2 found");
    expect(card).toHaveTextContent("Coordinates are GCJ-02");
    expect(within(card).getByTestId("location-center")).toHaveTextContent("Around 北京市朝阳区望京SOHO");
    const items = within(card).getAllByTestId("location-place");
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveTextContent("Cafe");
    expect(items[0]).toHaveTextContent("望京街1号");
    expect(within(items[0]!).getByTestId("location-distance")).toHaveTextContent("350 m");
    expect(within(items[1]!).getByTestId("location-distance")).toHaveTextContent("2.5 km");
    expect(card.textContent).not.toContain("\u202e"); // shown as a badge, never as itself
    expect(within(items[0]!).getByTestId("location-link-google")).toHaveAttribute("href", places.places![0]!.mapUrl);
    expect(within(items[0]!).getByTestId("location-link-amap")).toHaveAttribute("href", places.places![0]!.amapUrl);
    expect(within(items[1]!).queryAllByRole("link")).toHaveLength(0); // javascript: and another host are not links
    expect(screen.queryByTestId("tool-result")).toBeNull();
  });

  it("shows a route's mode, distance, duration and steps, a transit ride in words, and opens the map outside the app", () => {
    const { client } = openCard(route);
    const card = screen.getByTestId("location-result");
    expect(within(card).getByTestId("location-provider")).toHaveTextContent("Route by Google Maps");
    expect(card).not.toHaveTextContent("GCJ-02");
    expect(within(card).getByTestId("location-route-summary")).toHaveTextContent("Transit · 5.3 km · 1 h 5 min");
    const steps = within(card).getAllByTestId("location-step");
    expect(steps[0]).toHaveTextContent("Walk to Palais Royal · 250 m");
    expect(steps[1]).toHaveTextContent("Take 72 from Louvre to Concorde (3 stops) · 1.8 km");
    expect(card).toHaveTextContent("2 more steps not shown");
    const open = vi.fn();
    const prepare = vi.spyOn(client.browser, "prepare").mockReturnValue({ show: (u) => (open(u), true), discard: () => {} });
    const link = within(card).getByTestId("location-link-google");
    const ev = new MouseEvent("click", { bubbles: true, cancelable: true, button: 0 });
    link.dispatchEvent(ev);
    expect(ev.defaultPrevented).toBe(true);
    expect(prepare).toHaveBeenCalledOnce();
    expect(open).toHaveBeenCalledWith(route.route!.mapUrl);
  });

  it("speaks Chinese, and an empty answer says nothing was found", () => {
    openCard({ ...places, places: [] }, "zh-CN");
    const card = screen.getByTestId("location-result");
    expect(card).toHaveTextContent("Amap · 找到 0 个");
    expect(card).toHaveTextContent("没有找到结果。");
  });

  it("keeps the generic result for a display that is not a location answer", () => {
    openCard({ something: "else" });
    expect(screen.queryByTestId("location-result")).toBeNull();
    expect(screen.getByTestId("tool-result")).toBeInTheDocument();
  });

  it("accepts only the map sites' own https addresses", () => {
    expect(safeMapUrl("google", "https://www.google.com/maps/dir/?api=1")).not.toBeNull();
    expect(safeMapUrl("google", "https://www.google.com.evil.example/maps/")).toBeNull();
    expect(safeMapUrl("amap", "https://uri.amap.com/marker?x=1\"onclick")).toBeNull();
    expect(safeMapUrl("amap", undefined)).toBeNull();
  });
});
