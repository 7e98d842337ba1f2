/**
 * A stand-in KurrentDB node for the real client: an HTTP/2 server that speaks just enough gRPC
 * for appends (the server-feature table and multi-stream append), built from the client's own
 * protocol classes. It stores nothing; a read (which the client makes over a separate bridge)
 * is answered as of an empty log. It lets the installed client run for real: its connections, its channel, its
 * conversion of the server's errors.
 */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import features from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/serverfeatures_pb.js';
import streams from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v2/streams/streams_pb.js';
import { NOT_LEADER_MESSAGE, notLeaderDetails } from './fake-kurrent.ts';

function frame(message: { serializeBinary(): Uint8Array }): Buffer {
  const body = Buffer.from(message.serializeBinary());
  const out = Buffer.alloc(5 + body.length);
  out.writeUInt32BE(body.length, 1);
  body.copy(out, 5);
  return out;
}

function unframe(data: Buffer): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at + 5 <= data.length;) {
    const length = data.readUInt32BE(at + 1);
    out.push(new Uint8Array(data.subarray(at + 5, at + 5 + length)));
    at += 5 + length;
  }
  return out;
}

export class FakeKurrentNode {
  readonly sessions: http2.Http2Session[] = [];
  /** The gRPC methods called, in order. */
  readonly calls: string[] = [];
  /** Connections that answer appends as a follower, counted from the first to append. */
  followerSessions = 0;
  /** The leader a follower's refusal names. */
  leader = { host: 'node-2', port: 2113 };
  /** Reads answered (each as of an empty log). */
  reads = 0;
  /** What the server-feature table lists: multi-stream append (25.1+), not it, or no table at all. */
  features: 'multi-stream append' | 'older server' | 'no table' = 'multi-stream append';
  private position = 1_000n;

  private constructor(private readonly server: http2.Http2Server) {}

  static async start(): Promise<FakeKurrentNode> {
    const server = http2.createServer();
    const node = new FakeKurrentNode(server);
    server.on('session', (s) => node.sessions.push(s));
    server.on('stream', (stream, headers) => node.answer(stream, headers));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return node;
  }

  get url(): string {
    return `kurrentdb://127.0.0.1:${this.port}?tls=false`;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Connections that asked for AppendSession, in the order they first did (the read bridge never does). */
  readonly appendSessions: http2.Http2Session[] = [];

  /** Open connections of the append path (those that asked for AppendSession). */
  openAppendSessions(): number {
    return this.appendSessions.filter((s) => !s.closed && !s.destroyed).length;
  }

  openSessions(): number {
    return this.sessions.filter((s) => !s.closed && !s.destroyed).length;
  }

  private answer(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
    const path = String(headers[':path']);
    if (path.endsWith('/AppendSession') && !this.appendSessions.includes(stream.session!)) this.appendSessions.push(stream.session!);
    const sessionIndex = this.appendSessions.indexOf(stream.session!);
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      this.calls.push(path.split('/').pop()!);
      if (path.endsWith('/GetSupportedMethods') && this.features !== 'no table') {
        const reply = new features.SupportedMethods();
        reply.setEventStoreServerVersion(this.features === 'older server' ? '24.10.0' : '25.1.0');
        const method = new features.SupportedMethod();
        method.setServiceName(
          this.features === 'older server' ? 'event_store.client.streams.Streams' : 'kurrentdb.protocol.v2.streams.StreamsService',
        );
        method.setMethodName(this.features === 'older server' ? 'BatchAppend' : 'AppendSession');
        reply.addMethods(method);
        return this.reply(stream, frame(reply));
      }
      if (path.endsWith('/AppendSession')) {
        if (sessionIndex < this.followerSessions) {
          return stream.respond(
            {
              ':status': 200,
              'content-type': 'application/grpc',
              'grpc-status': '9',
              'grpc-message': encodeURIComponent(NOT_LEADER_MESSAGE),
              'grpc-status-details-bin': notLeaderDetails(this.leader.host, this.leader.port).toString('base64'),
            },
            { endStream: true },
          );
        }
        const reply = new streams.AppendSessionResponse();
        for (const bytes of unframe(Buffer.concat(chunks))) {
          const request = streams.AppendRequest.deserializeBinary(bytes);
          const out = new streams.AppendResponse();
          out.setStream(request.getStream());
          out.setStreamRevision(String(request.getRecordsList().length - 1));
          reply.addOutput(out);
          this.position += 100n;
        }
        reply.setPosition(String(this.position));
        return this.reply(stream, frame(reply));
      }
      if (path === '/event_store.client.streams.Streams/Read') {
        // A read of an empty log: the stream ends with no event.
        this.reads++;
        return stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '0' }, { endStream: true });
      }
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12' }, { endStream: true });
    });
  }

  private reply(stream: http2.ServerHttp2Stream, body: Buffer): void {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(body);
  }

  /** The position the last append was answered with. */
  get lastPosition(): bigint {
    return this.position;
  }

  async stop(): Promise<void> {
    for (const s of this.sessions) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
