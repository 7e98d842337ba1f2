export * from './types.ts';
export * from './streams.ts';
export * from './codec.ts';
