import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDb, type TestDb } from '../../support/db.ts';
import { describeSchema } from '../../support/schema.ts';

describe('the schema of a migrated database', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  // The file is the schema every migration together builds: a change to it is a change to the
  // schema, made on purpose by a new migration, and shows in review as a diff of this file.
  it('is the one described in schema.txt', async () => {
    await expect(await describeSchema(t.db)).toMatchFileSnapshot('./__snapshots__/schema.txt');
  });
});
