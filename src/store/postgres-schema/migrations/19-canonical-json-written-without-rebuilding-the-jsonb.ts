import type { Migration } from '../../../db/types.ts';
import { vacEventCanonicalSql } from '../vac-chain.ts';

export const canonicalJsonPrinted: Migration = {
  version: 19,
  name: 'canonical JSON written without rebuilding the jsonb',
  sql: `
      -- The same bytes as version 17's, which built a jsonb of the whole event (copying its data
      -- and metadata into it) only to print it: jsonb prints an object's keys in its own order, so
      -- the envelope's is fixed (data, type, stream, version, metadata, revision), and its members
      -- print as they do on their own. Appends and verification print each event once, not twice.
${vacEventCanonicalSql}    `,
};
