import type { Migration } from '../../../db/types.ts';

export const vacationRecordIds: Migration = {
  version: 4,
  name: 'vacation record ids',
  sql: `
      -- Numeric record ids (the spec's id, idEliminado) are taken before the append; gaps are fine.
      CREATE SEQUENCE vacation_record_ids START 1;
    `,
};
