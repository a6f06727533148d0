import { useCallback, useEffect, useState } from "react";
import { toAppError, useClient, type AppError } from "../api";

/**
 * A list read from the backend and read again whenever its topic announces a change, so
 * every window shows the same list. `reload` is for a caller that changed it itself.
 */
export function useTopicList<T>(
  read: () => Promise<T[]>,
  topic: string,
  type: string,
): { items: T[] | null; error: AppError | null; reload: () => void } {
  const client = useClient();
  const [items, setItems] = useState<T[] | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  const reload = useCallback(() => {
    read()
      .then((l) => {
        setItems(l);
        setError(null);
      })
      .catch((e) => setError(toAppError(e)));
  }, [client]);
  useEffect(() => {
    reload();
    return client.transport.subscribe((ev) => {
      if (ev.topic === topic && ev.type === type) reload();
    });
  }, [client, reload, topic, type]);
  return { items, error, reload };
}
