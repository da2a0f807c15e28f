// Publish/subscribe for live events. In-process by default; a PostgreSQL LISTEN/NOTIFY bus spans processes.
export type Unsubscribe = () => void;

export interface PubSub {
  publish(topic: string, message: unknown): Promise<void>;
  subscribe(topic: string, listener: (message: unknown) => void): Unsubscribe;
  close?(): Promise<void>;
}

export function inMemoryPubSub(): PubSub {
  const topics = new Map<string, Set<(m: unknown) => void>>();
  return {
    async publish(topic, message) {
      const set = topics.get(topic);
      if (!set) return;
      for (const l of [...set]) {
        try {
          l(message);
        } catch {
          // a failing listener must not stop delivery to the others
        }
      }
    },
    subscribe(topic, listener) {
      let set = topics.get(topic);
      if (!set) topics.set(topic, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) topics.delete(topic);
      };
    },
  };
}

/** @deprecated Renamed `inMemoryPubSub`: "memory" in a name means the memory service. This alias goes in the next major version. */
export const memoryPubSub = inMemoryPubSub;
