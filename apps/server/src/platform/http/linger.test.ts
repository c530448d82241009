import net, { type AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lingerAfterAnswer } from './linger.ts';

const MiB = 1024 * 1024;

/**
 * A raw client streaming a chunked upload that goes on writing `after` more bytes once the answer
 * has arrived, as a client mid-upload does until it notices. Resolves with the status line and
 * the first socket error (EPIPE, ECONNRESET) it met.
 */
function writeOnAfterAnswer(port: number, after: number): Promise<{ answer: string; error?: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let error: string | undefined;
    let answered = false;
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error ??= err.code ?? err.message;
    });
    socket.on('close', () => resolve({ answer: answer.split('\r\n')[0] ?? '', error }));
    const chunk = Buffer.concat([Buffer.from(`10000\r\n`), Buffer.alloc(0x10000, 0x61), Buffer.from('\r\n')]);
    let sent = 0;
    const pump = () => {
      while (!error && (!answered || sent < after)) {
        if (answered) sent += 0x10000;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      socket.end('0\r\n\r\n');
    };
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
      answered = true;
    });
    socket.write(
      'PUT / HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    pump();
  });
}

describe('lingering close (RFC 9112 §9.6)', () => {
  const app = Fastify();
  let port = 0;
  beforeAll(async () => {
    app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    app.put('/', async (_request, reply) => {
      // Refused before the body is read: what a size limit does.
      lingerAfterAnswer(reply);
      return reply.code(413).send({ error: 'too large' });
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  it('issue 12 §16: after a 413 with Connection: close the server keeps reading what the client still sends, so a client mid-upload reads the answer instead of a reset', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => writeOnAfterAnswer(port, 16 * MiB)));
    expect(results).toEqual(
      results.map(() => ({ answer: 'HTTP/1.1 413 Payload Too Large', error: undefined })),
    );
  });
});
