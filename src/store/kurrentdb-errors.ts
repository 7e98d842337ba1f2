/**
 * The KurrentDB client's errors as the adapter reads them: conflicts, refusals by a node that is
 * not the leader, missing permissions, and what the operator is told of each.
 */
import { AccessDeniedError, NotLeaderError, WrongExpectedVersionError, convertToCommandError } from '@kurrent/kurrentdb-client';
import v2errors from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v2/errors_pb.js';
import status from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/status_pb.js';
import { toActualRevision } from './kurrentdb-mapping.ts';
import { WrongExpectedRevisionError, type StreamWrite } from './types.ts';

/** Errors raised on the append session's socket reach us unconverted. */
export function converted(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  try {
    return convertToCommandError(err);
  } catch {
    return err;
  }
}

/** The port's conflict for a client error, or undefined when the error is not a conflict. */
export function toConflict(err: unknown, writes: StreamWrite[]): WrongExpectedRevisionError | undefined {
  const e = converted(err);
  if (!(e instanceof WrongExpectedVersionError)) return undefined;
  const name = String(e.streamName ?? '');
  const w =
    writes.find((x) => x.stream === name) ??
    writes.find((x) => x.stream.toLowerCase() === name.toLowerCase()) ??
    writes.find((x) => x.expectedRevision !== 'any') ??
    writes[0];
  if (!w) return undefined;
  return new WrongExpectedRevisionError(w.stream, w.expectedRevision, toActualRevision(e.actualState));
}

const GRPC_FAILED_PRECONDITION = 9;

/** The leader a refusal names: host and gRPC port. */
export interface LeaderAddress {
  host: string;
  port: number;
}

function statusDetail(err: unknown): { typeUrl: string; value: Uint8Array } | undefined {
  const e = converted(err);
  const raw = ((e as { _raw?: unknown })._raw ?? e) as { code?: unknown; metadata?: { get?(key: string): unknown[] } };
  if (typeof raw !== 'object' || raw === null || raw.code !== GRPC_FAILED_PRECONDITION) return undefined;
  const bytes = raw.metadata?.get?.('grpc-status-details-bin')?.[0];
  if (!(bytes instanceof Uint8Array)) return undefined;
  const any = Status.deserializeBinary(new Uint8Array(bytes)).getDetails();
  return any ? { typeUrl: any.getTypeUrl(), value: any.getValue_asU8() } : undefined;
}

/**
 * A node that is not the leader refusing a call, and the leader it names when it knows one.
 * Multi-stream append answers FAILED_PRECONDITION with NotLeaderNodeErrorDetails, which client
 * 1.3.1 does not know: it reports an UnknownError and keeps its channel on that node. Reads
 * refused on a follower come as the client's own NotLeaderError, with the leader's endpoint.
 */
export function notLeader(err: unknown): { leader?: LeaderAddress } | undefined {
  const e = converted(err);
  if (e instanceof NotLeaderError) {
    const { address, port } = e.leader ?? {};
    return address && Number.isInteger(port) && port > 0 ? { leader: { host: address, port } } : {};
  }
  const detail = statusDetail(e);
  if (!detail?.typeUrl.endsWith('NotLeaderNodeErrorDetails')) return undefined;
  const node = NotLeaderNodeErrorDetails.deserializeBinary(detail.value).getCurrentLeader();
  const host = node?.getHost();
  const port = node?.getPort();
  return host && port ? { leader: { host, port } } : {};
}

export function isNotLeader(err: unknown): boolean {
  return notLeader(err) !== undefined;
}

const GRPC_PERMISSION_DENIED = 7;

/**
 * Refused for want of a permission: the read bridge's AccessDeniedError, or the server's
 * PERMISSION_DENIED on multi-stream append, which client 1.3.1 leaves an UnknownError.
 */
export function isAccessDenied(err: unknown): boolean {
  const e = converted(err);
  return e instanceof AccessDeniedError || (e as { code?: unknown })?.code === GRPC_PERMISSION_DENIED;
}

/** What a refused user is told, naming what it may not do and where the fix is described. */
export function accessDeniedMessage(host: string, what: 'read $all' | 'append to its streams'): string {
  const how =
    what === 'read $all'
      ? '$all is a system stream: connect as a member of $admins, or grant the user read access in the $acl of $all (stream $$$all) or in $systemStreamAcl'
      : 'its streams are user streams: check $userStreamAcl and the stream ACLs';
  return `the user of KURRENTDB_URL may not ${what} on KurrentDB at ${host}: ${how} (docs/kurrentdb.md, "Permissions")`;
}

const { NotLeaderNodeErrorDetails } = v2errors;
const { Status } = status;

export function unsupportedMessage(host: string): string {
  return `KurrentDB at ${host} does not support multi-stream append: version 25.1 or newer is required`;
}
