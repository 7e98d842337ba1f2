/**
 * Every PostgreSQL advisory-lock key the service takes, in one place, so that no two uses can
 * collide by accident. Keys are either one bigint or a pair of int4 (namespace, id); the pair
 * form shows in pg_locks as (classid, objid) with objsubid = 2.
 *
 * All of them start with 7264 so that an operator reading pg_locks can tell them apart from
 * other applications' locks on the same cluster.
 */

/** Serialises concurrent migrators (several instances starting at once). Single bigint key. */
export const MIGRATION_LOCK = 7_264_001;

/**
 * Held shared by every appending transaction from before its first write until it ends, so that
 * readers of the global order can tell appenders from other open transactions. Pair key
 * (7264, 2). The append functions in SQL take it themselves: their live text
 * (src/store/postgres-schema) from here, the applied migrations' frozen texts by these two numbers.
 */
export const APPEND_LOCK = { namespace: 7264, id: 2 } as const;

/** Namespace of the per-projector runner locks (id: hash of the projector's name). */
export const PROJECTION_RUNNER_NAMESPACE = 7_264_010;

/** Namespace of the per-projector rebuild locks (id: hash of the projector's name). */
export const PROJECTION_REBUILD_NAMESPACE = 7_264_011;

/** Serialises read-model DDL of several instances starting at once. Single bigint key. */
export const PROJECTION_DDL_LOCK = 7_264_012;

/** Namespace of the per-subscription webhook deliverer locks (id: hash of the subscription's id). */
export const WEBHOOK_DELIVERER_NAMESPACE = 7_264_020;

/**
 * Namespace of the locks each running process holds for its life (id: its instance id), so that
 * another can tell that the process behind an idempotency claim has ended (src/db/instance-liveness.ts).
 */
export const INSTANCE_NAMESPACE = 7_264_030;
