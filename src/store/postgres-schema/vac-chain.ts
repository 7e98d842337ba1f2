/**
 * The hash chain's functions as the database runs them (src/store/chain.ts computes the same in
 * TypeScript). vac_event_canonical, an event's canonical JSON in UTF-8; vac_chain_step and the
 * aggregate vac_chain, one link of a stream's chain and the chain over a run of its events. The
 * baseline (migrations.ts) creates them.
 *
 * Editing these texts edits applied migrations: see the note at the top of migrations.ts.
 */
export const vacEventCanonicalSql = `      CREATE OR REPLACE FUNCTION vac_event_canonical(p_stream text, p_revision bigint, p_type text, p_version integer, p_data jsonb, p_meta jsonb)
        RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
        SELECT convert_to('{"data": ' || p_data::text || ', "type": ' || to_json(p_type)::text || ', "stream": ' || to_json(p_stream)::text
                          || ', "version": ' || p_version || ', "metadata": ' || p_meta::text || ', "revision": ' || p_revision || '}', 'UTF8')
      $$;
`;

export const vacChainSql = `      -- One link: the running hash so far, or the hash the chain starts from (none for a new stream).
      CREATE FUNCTION vac_chain_step(p_state bytea, p_prev bytea, p_canonical bytea)
        RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT sha256(coalesce(p_state, p_prev, ''::bytea) || p_canonical)
      $$;
      -- vac_chain(prev, canonical) OVER (PARTITION BY stream ORDER BY revision ROWS UNBOUNDED PRECEDING):
      -- the hash of each event of a run of a stream's events that follows the hash prev.
      CREATE AGGREGATE vac_chain(bytea, bytea) (SFUNC = vac_chain_step, STYPE = bytea);
`;
