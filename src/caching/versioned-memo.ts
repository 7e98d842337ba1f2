import { LRUCache } from 'lru-cache';

/**
 * Answers kept per key together with the version of what they were figured from, at most `max`
 * of them (least recently used out first): an answer is given again only while that version is
 * still the current one. The version must be read before the answer is figured, so that a kept
 * answer is never older than the version it is kept under.
 */
export class VersionedMemo<V extends object> {
  private readonly held: LRUCache<string, { version: string; value: V }>;

  constructor(max: number) {
    this.held = new LRUCache({ max });
  }

  async get(key: string, version: string, figure: () => Promise<V>): Promise<V> {
    const held = this.held.get(key);
    if (held !== undefined && held.version === version) return held.value;
    const value = await figure();
    this.held.set(key, { version, value });
    return value;
  }
}
