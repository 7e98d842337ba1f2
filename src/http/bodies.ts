import { Busboy } from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Socket } from 'node:net';
import type { Readable } from 'node:stream';

/** The multipart limits besides the bytes: fields only, as the other body types carry. */
const MULTIPART_LIMITS = { files: 0, fields: 100, fieldNameSize: 200, parts: 101, headerPairs: 50 };

function tooLarge(): Error {
  return Object.assign(new Error('body over the size limit'), { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
}

function badBody(message: string): Error {
  return Object.assign(new Error(message), { statusCode: 400, code: 'FST_INVALID_MULTIPART_CONTENT_TYPE' });
}

/**
 * A multipart body's fields as plain values (a name given more than once as a list, like the
 * other body types), read from the stream fastify hands the parser and counted as they come:
 * past the route's limit reading stops and the answer is 413. A field cut by busboy's own size
 * limit, a file part or a prototype's name refuse the body rather than reading it short.
 */
function readMultipart(req: FastifyRequest, payload: Readable, limit: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const fields: Record<string, unknown> = {};
    let received = 0;
    let bb: ReturnType<typeof Busboy>;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      payload.unpipe(bb);
      payload.off('data', count);
      // What is left of the body is not read here: see lingerThenClose.
      payload.pause();
      reject(err);
    };
    function count(chunk: Buffer) {
      received += chunk.length;
      if (received > limit) fail(tooLarge());
    }
    try {
      bb = Busboy({ headers: req.headers as never, limits: { ...MULTIPART_LIMITS, fieldSize: limit } });
    } catch (err) {
      reject(badBody((err as Error).message));
      return;
    }
    bb.on('field', (name, value, nameTruncated, valueTruncated) => {
      if (nameTruncated || valueTruncated) return fail(tooLarge());
      if (name in Object.prototype)
        return fail(Object.assign(new Error('prototype key'), { statusCode: 400, code: 'FST_PROTO_VIOLATION' }));
      const seen = fields[name];
      fields[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    });
    bb.on('file', (_name, stream) => {
      stream.resume();
      fail(tooLarge());
    });
    bb.on('partsLimit', () => fail(tooLarge()));
    bb.on('filesLimit', () => fail(tooLarge()));
    bb.on('fieldsLimit', () => fail(tooLarge()));
    bb.on('error', (err: Error) => fail(badBody(`Multipart: ${err.message}`)));
    bb.on('finish', () => {
      if (settled) return;
      settled = true;
      resolve(fields);
    });
    payload.on('error', (err) => fail(err));
    payload.on('data', count);
    payload.pipe(bb);
  });
}

/**
 * Bodies are refused before they are read. A multipart body is parsed here, capped at the route's
 * limit while it streams (fastify's own parsers of JSON and forms count their bytes the same way);
 * and an answer given before its request's body was all received (a 401 from the key check, a 413,
 * any refusal of the hooks) reads little more of it before the connection is closed, instead of
 * Node reading all the rest to keep the connection alive.
 */
export function boundedBodies(app: FastifyInstance) {
  app.addContentTypeParser('multipart/form-data', (req, payload, done) => {
    readMultipart(req, payload, req.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 0).then(
      (body) => done(null, body),
      (err: Error) => done(err, undefined),
    );
  });
  // Before the answer is written: a body nobody read would be dumped by Node once it is, unseen.
  app.addHook('onSend', async (req, reply) => {
    // Injected requests (fastify.inject) have no socket to read on or close.
    if (req.raw.complete || !(req.raw.socket instanceof Socket)) return;
    // fastify asks for the connection to close after a body it could not parse; closed at once,
    // the client still writing would get a reset instead of the answer.
    reply.removeHeader('connection');
    lingerThenClose(req);
  });
}

/** What is read of a refused body after its answer, at most, so that the client sees the answer. */
const LINGER_BYTES = 1024 * 1024;
const LINGER_MS = 2000;

/**
 * A client still sending when its answer leaves would lose that answer to a reset if the socket
 * closed at once (it writes into a closed connection): the rest of the body is read and dropped
 * for a moment, as web servers do, and the connection is closed once that budget of bytes or
 * time is spent without the body ending.
 */
function lingerThenClose(req: FastifyRequest) {
  const raw = req.raw;
  const socket = raw.socket;
  let read = 0;
  const close = () => {
    clearTimeout(timer);
    raw.off('data', count);
    if (!raw.complete) socket.destroy();
  };
  function count(chunk: Buffer) {
    read += chunk.length;
    if (read > LINGER_BYTES) close();
  }
  const timer = setTimeout(close, LINGER_MS);
  timer.unref();
  raw.on('data', count);
  raw.once('end', () => clearTimeout(timer));
  socket.once('close', () => clearTimeout(timer));
  raw.resume();
}
