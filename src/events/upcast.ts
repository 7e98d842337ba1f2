import type { EventType } from './types.ts';

type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

/**
 * Upcasters from version N to N+1, per type. Readers always see the current version, so old
 * events never need rewriting. Empty while every type is at version 1.
 */
const upcasters: Partial<Record<EventType, Record<number, Upcaster>>> = {};

export function upcast(type: EventType, version: number, data: Record<string, unknown>): Record<string, unknown> {
  let v = version;
  let d = data;
  for (;;) {
    const next = upcasters[type]?.[v];
    if (!next) return d;
    d = next(d);
    v += 1;
  }
}
