import {
  KurrentDBClient,
  type AllStreamResolvedEvent,
  type AppendStreamRequest,
  type MultiAppendResult,
  type ReadAllOptions,
  type ReadStreamOptions,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';

/**
 * The part of the KurrentDB client the adapter uses. Production passes the real client
 * (connectClient); tests pass a stand-in that raises the client's own error classes.
 */
export interface KurrentClient {
  multiStreamAppend(requests: AppendStreamRequest[]): Promise<MultiAppendResult>;
  readStream(stream: string, options: ReadStreamOptions): AsyncIterable<ResolvedEvent>;
  readAll(options: ReadAllOptions): AsyncIterable<AllStreamResolvedEvent>;
  /** Ends the client's calls and closes its connections. */
  close(): Promise<void>;
}

/**
 * The client's dispose() only cancels its streaming calls: the gRPC channel stays open, with
 * its connection and keepalive timer. The client keeps the channel private, so the channels it
 * creates are noted as it creates them (through its own createChannel) and closed on close().
 * Closing a channel lets the calls under way on it finish first. The read bridge has no close:
 * its connection goes when the client is no longer referenced.
 */
function trackChannels(client: KurrentDBClient): { closeAll(): Promise<void> } {
  const opened: Promise<{ close(): void }>[] = [];
  const internals = client as unknown as { createChannel?: () => Promise<{ close(): void }> };
  const create = internals.createChannel;
  if (typeof create === 'function') {
    internals.createChannel = () => {
      const channel = create();
      opened.push(channel);
      return channel;
    };
  }
  return {
    async closeAll() {
      for (const channel of opened.splice(0)) (await channel.catch(() => undefined))?.close();
    },
  };
}

export function connectClient(connectionString: string): KurrentClient {
  const client = KurrentDBClient.connectionString(connectionString);
  const channels = trackChannels(client);
  return {
    multiStreamAppend: (requests) => client.multiStreamAppend(requests),
    readStream: (stream, options) => client.readStream(stream, options),
    readAll: (options) => client.readAll(options),
    async close() {
      await client.dispose();
      await channels.closeAll();
    },
  };
}
