import type { Migration } from '../../../db/types.ts';
import { vacAppendAnySql } from '../vac-append-any.ts';
import { vacAppendBatchSql } from '../vac-append-batch.ts';
import { vacAppendSql } from '../vac-append.ts';
import { vacChainSql } from '../vac-chain.ts';

/** Migration 17 up to the append functions: the hash column, its functions, the events chained. */
const HASH_CHAIN = `
      -- Every event carries the SHA-256 of its stream's previous event's hash followed by its own
      -- canonical JSON (src/store/chain.ts defines both and computes the same in TypeScript):
      -- jsonb's text form of (stream, revision, type, version, data, metadata), in UTF-8.
      ALTER TABLE events ADD COLUMN hash bytea;
      CREATE FUNCTION vac_event_canonical(p_stream text, p_revision bigint, p_type text, p_version integer, p_data jsonb, p_meta jsonb)
        RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
        SELECT convert_to(jsonb_build_object('stream', p_stream, 'revision', p_revision, 'type', p_type, 'version', p_version,
                                             'data', p_data, 'metadata', p_meta)::text, 'UTF8')
      $$;
${vacChainSql}
      -- The events stored so far, chained in one pass in the order of the (stream, revision) index.
      UPDATE events e SET hash = c.hash
        FROM (
          SELECT position, vac_chain(NULL::bytea, vac_event_canonical(stream, revision, type, version, data, metadata))
                   OVER (PARTITION BY stream ORDER BY revision ROWS UNBOUNDED PRECEDING) AS hash
            FROM events
        ) c
       WHERE e.position = c.position;
      ALTER TABLE events ALTER COLUMN hash SET NOT NULL;

      -- The appends of version 15, each writing its events' hashes.
`;

export const hashChain: Migration = {
  version: 17,
  name: 'hash chain of every stream',
  sql: `${HASH_CHAIN}${vacAppendSql}\n${vacAppendBatchSql}\n${vacAppendAnySql}    `,
};
