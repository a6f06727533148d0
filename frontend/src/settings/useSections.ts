import { useMemo } from "react";
import { useClient, useTopic } from "../api";
import { settingsSections, type SectionId } from "../shell/routes";

/**
 * The settings navigation of this backend: the window's own pages around every
 * capability's page (ListToolsets), and whether the toolsets have arrived (until then only
 * the window's own pages are known).
 */
export function useSettingsSections(): { sections: SectionId[]; loaded: boolean } {
  const data = useTopic(useClient().stores.toolsets).data;
  return useMemo(() => ({ sections: settingsSections(data?.toolsets), loaded: data != null }), [data]);
}
