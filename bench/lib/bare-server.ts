import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

/**
 * The peer of the API benchmark: a bare node:http server that answers each request target with
 * the exact bytes (status, content type, body) gdflow answered for it, recorded beforehand.
 * It does no signing check, no routing, no database: the floor any Node HTTP service stands on.
 */
const answers = new Map<string, { status: number; body: Buffer; type: string }>();
const recorded = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Record<string, { status: number; body: string; type: string }>;
for (const [target, answer] of Object.entries(recorded))
  answers.set(target, { status: answer.status, type: answer.type, body: Buffer.from(answer.body, 'utf8') });

const server = createServer((req, res) => {
  const answer = answers.get(req.url ?? '');
  if (!answer) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(answer.status, { 'content-type': answer.type, 'content-length': answer.body.length, 'x-gd-requestid': '000000000000000000000000' });
  res.end(answer.body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
