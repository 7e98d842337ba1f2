import { getHeapStatistics } from 'node:v8';

/**
 * A share of the heap limit (`VACACIONES_HEAP_MB` under `npm start`, or Node's own), in bytes: what
 * a cache bounded by it may hold. Such a cache holds more workers when the heap is given more, and
 * never so many that the collector runs without end near the limit.
 */
export const heapShare = (share: number): number => Math.floor(getHeapStatistics().heap_size_limit * share);
