import { lazy, Suspense, useEffect, useRef, type KeyboardEvent } from "react";
import { useTranslation } from "react-i18next";
import { useClient, useSettings, type SettingsSnapshot } from "../api";
import { ComingSoon } from "../components/ComingSoon";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useDrawer } from "../shell/drawer";
import type { SectionId } from "../shell/routes";
import { useRouter } from "../shell/router";
import { ProvidersSection } from "../providers/ProvidersSection";
import { ToolsPanel } from "../tools/ToolsPanel";
import { AboutSection } from "./AboutSection";
import { GeneralSection } from "./GeneralSection";
import { LocationSection } from "./LocationSection";
import { SpecFields } from "./SettingField";
import { WebSearchSection } from "./WebSearchSection";
import { SandboxSection } from "../sandbox/SandboxSection";
import { genericSpecs } from "./specs";
import { useSettingsSections } from "./useSections";

// Sections with much code of their own load on first visit.
const McpSection = lazy(() => import("../mcp/McpSection").then((m) => ({ default: m.McpSection })));
const KnowledgeSection = lazy(() => import("../knowledge/KnowledgeSection").then((m) => ({ default: m.KnowledgeSection })));
const SkillsSection = lazy(() => import("../skills/SkillsSection").then((m) => ({ default: m.SkillsSection })));
const AgentsSection = lazy(() => import("../agents/AgentsSection").then((m) => ({ default: m.AgentsSection })));
const AssistantsSection = lazy(() => import("../assistants/AssistantsSection").then((m) => ({ default: m.AssistantsSection })));
const PermissionsSection = lazy(() => import("../permissions/PermissionsSection").then((m) => ({ default: m.PermissionsSection })));
const sectionFallback = <p className="muted" role="status" aria-busy="true" />;

/**
 * General and About have pages of their own. The others render whatever settings the
 * backend describes for them, then say honestly what is not in this build yet.
 */
function SectionBody({ section, settings }: { section: SectionId; settings: SettingsSnapshot }) {
  switch (section) {
    case "general":
      return <GeneralSection settings={settings} />;
    case "about":
      return <AboutSection />;
    case "tools":
      return (
        <>
          <SpecFields specs={genericSpecs(settings.specs, section)} values={settings.values} />
          <ToolsPanel />
        </>
      );
    case "providers":
      return (
        <>
          <ProvidersSection />
          <SpecFields specs={genericSpecs(settings.specs, section)} values={settings.values} />
        </>
      );
    case "assistants":
      return (
        <Suspense fallback={sectionFallback}>
          <AssistantsSection />
        </Suspense>
      );
    case "mcp":
      return (
        <Suspense fallback={sectionFallback}>
          <McpSection />
          <SpecFields specs={genericSpecs(settings.specs, section)} values={settings.values} />
        </Suspense>
      );
    case "web-search":
      return <WebSearchSection settings={settings} />;
    case "sandbox":
      return <SandboxSection settings={settings} />;
    case "location":
      return <LocationSection settings={settings} />;
    case "knowledge":
      return (
        <Suspense fallback={sectionFallback}>
          <KnowledgeSection />
          <SpecFields specs={genericSpecs(settings.specs, section)} values={settings.values} />
        </Suspense>
      );
    case "agents":
      return (
        <Suspense fallback={sectionFallback}>
          <AgentsSection />
          <SpecFields specs={genericSpecs(settings.specs, section)} values={settings.values} />
        </Suspense>
      );
    case "skills":
      return (
        <Suspense fallback={sectionFallback}>
          <SkillsSection />
          <SpecFields specs={genericSpecs(settings.specs, section)} values={settings.values} />
        </Suspense>
      );
    case "permissions":
      return (
        <Suspense fallback={sectionFallback}>
          <PermissionsSection settings={settings} />
        </Suspense>
      );
    default: {
      const specs = genericSpecs(settings.specs, section);
      return (
        <>
          <SpecFields specs={specs} values={settings.values} />
          <ComingSoon section={section} />
        </>
      );
    }
  }
}

export function SettingsPage({ section: asked }: { section: SectionId }) {
  const { t } = useTranslation("settings");
  const { sections, loaded } = useSettingsSections();
  // A page this backend does not have (an old link, a capability not in this build) shows
  // General; one asked for before the toolsets arrived waits for them.
  const section = sections.includes(asked) ? asked : loaded ? "general" : null;
  const { navigate } = useRouter();
  const client = useClient();
  const settings = useSettings();
  const drawer = useDrawer("settings-nav");
  const navRef = useRef<HTMLUListElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);

  // Moving between sections by keyboard or by an error's action puts focus on the new
  // section's heading, so screen readers announce where they are.
  // A section picked from the drawer (a narrow window) closes it: the focus goes to the
  // heading too, as the button it was on is hidden.
  useEffect(() => {
    if (section && (drawer.open || !navRef.current?.contains(document.activeElement))) headingRef.current?.focus();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- on a new section only
  }, [section]);

  const onNavKey = (e: KeyboardEvent<HTMLUListElement>) => {
    const keys = ["ArrowDown", "ArrowUp", "Home", "End"];
    if (!keys.includes(e.key)) return;
    const buttons = Array.from(navRef.current?.querySelectorAll<HTMLButtonElement>("button") ?? []);
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    let next = i;
    if (e.key === "ArrowDown") next = (i + 1) % buttons.length;
    if (e.key === "ArrowUp") next = (i - 1 + buttons.length) % buttons.length;
    if (e.key === "Home") next = 0;
    if (e.key === "End") next = buttons.length - 1;
    e.preventDefault();
    const b = buttons[next];
    if (b) {
      b.focus();
      b.click();
    }
  };

  return (
    <div className="settings" data-testid="settings-page" data-nav={drawer.open ? "open" : "closed"}>
      <button type="button" ref={drawer.toggleRef} className="btn settings__nav-toggle" {...drawer.toggleProps} data-testid="settings-nav-toggle">
        <Icon name="menu" size={16} />
        <span>{section ? t(`sections.${section}.title`) : t("title")}</span>
        <span className="visually-hidden">{t("navOpen")}</span>
      </button>
      <nav id={drawer.id} ref={drawer.panelRef} className="settings__nav" aria-label={t("navLabel")} onKeyDown={drawer.onPanelKeyDown}>
        <h1 className="settings__title">{t("title")}</h1>
        <ul ref={navRef} onKeyDown={onNavKey}>
          {sections.map((s) => (
            <li key={s}>
              <button
                type="button"
                className="settings__nav-item"
                data-testid={`settings-nav-${s}`}
                aria-current={s === section ? "page" : undefined}
                onClick={() => navigate({ name: "settings", section: s })}
              >
                {t(`sections.${s}.title`)}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      {section ? (
        <section className="settings__content" aria-labelledby="settings-section-title" data-testid={`settings-section-${section}`}>
          <header className="settings__header">
            <h2 id="settings-section-title" ref={headingRef} tabIndex={-1}>
              {t(`sections.${section}.title`)}
            </h2>
            <p className="settings__description">{t(`sections.${section}.description`)}</p>
          </header>
          {settings.data ? (
            <SectionBody section={section} settings={settings.data} />
          ) : settings.error ? (
            <ErrorView error={settings.error} onRetry={() => void client.stores.settings.reload()} />
          ) : null}
        </section>
      ) : (
        <section className="settings__content" aria-busy="true" />
      )}
    </div>
  );
}
