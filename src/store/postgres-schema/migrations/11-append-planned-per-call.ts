import type { Migration } from '../../../db/types.ts';

export const appendPlannedPerCall: Migration = {
  version: 11,
  name: 'append planned per call',
  sql: `
      -- Version 8 planned vac_append's statements once per connection. A plan made while streams
      -- was small scans all of it, and a connection keeps its plan: audit appends, which touch
      -- thirty streams at a time, ended up reading every stream row. Planned per call, the plans
      -- follow the table as it grows.
      ALTER FUNCTION vac_append SET plan_cache_mode = force_custom_plan;
      ALTER FUNCTION vac_append SET jit = off;
    `,
};
