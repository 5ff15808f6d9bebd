import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fetchTrusting } from '../../src/client/trusted-fetch.js';
import { MissingComponent } from './components.js';

/**
 * A real nginx (Debian's `nginx`) with TLS in front of a gdflow, for the reverse-proxy tests: a throwaway CA and a
 * server certificate for 127.0.0.1 made with openssl, and nginx run in the foreground as a child process with its
 * own prefix, configuration, logs and temp directories (nothing of /etc/nginx or /var/log/nginx is used).
 */

/** Why the reverse-proxy tests cannot run here, or undefined. */
export function nginxUnavailable(): string | undefined {
  if (spawnSync('nginx', ['-v'], { stdio: 'ignore' }).error) return 'nginx is not installed (Debian: apt-get install nginx)';
  if (spawnSync('openssl', ['version'], { stdio: 'ignore' }).error) return 'openssl is not installed (Debian: apt-get install openssl)';
  return undefined;
}

export interface Certificates {
  /** The throwaway CA's certificate: what clients are told to trust (--ca-file). */
  ca: string;
  /** The server's certificate (for 127.0.0.1, signed by the CA) and its key. */
  cert: string;
  key: string;
}

/** A CA and a server certificate for IP 127.0.0.1 it signed, valid for a day (EC P-256: made in milliseconds). */
export function makeCertificates(dir: string): Certificates {
  mkdirSync(dir, { recursive: true });
  const at = (name: string) => join(dir, name);
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=gdflow test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  openssl(['req', ...ec, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=127.0.0.1']);
  writeFileSync(at('server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n');
  openssl([
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-out',
    at('server.pem'),
    '-days',
    '1',
    '-extfile',
    at('server.ext'),
  ]);
  return { ca: at('ca.pem'), cert: at('server.pem'), key: at('server.key') };
}

/** A TCP port nobody listens on at this moment. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Nginx {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
  errorLog(): string;
}

/**
 * Start nginx with `site` (a server block such as deploy/nginx/gdflow.conf, already adapted) inside a minimal main
 * configuration in `dir`, and wait until `url`/healthz answers through it with the CA trusted.
 */
export async function startNginx(dir: string, site: string, port: number, caFile: string): Promise<Nginx> {
  const missing = nginxUnavailable();
  if (missing) throw new MissingComponent(missing);
  mkdirSync(dir, { recursive: true });
  // Run as root, nginx's workers run as nobody: they must reach the temp directories under the prefix.
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'site.conf'), site);
  const conf = `worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
daemon off;
events { worker_connections 256; }
http {
  access_log ${join(dir, 'access.log')};
  client_body_temp_path ${join(dir, 'client_body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  include ${join(dir, 'site.conf')};
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  // -e: the error log before the configuration is read (the default is /var/log/nginx/error.log).
  const child = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const errorLog = () => {
    try {
      return `${stderr}${readFileSync(join(dir, 'error.log'), 'utf8')}`;
    } catch {
      return stderr;
    }
  };
  const url = `https://127.0.0.1:${port}`;
  const trusting = fetchTrusting(readFileSync(caFile, 'utf8'));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${errorLog()}`);
    try {
      if ((await trusting(`${url}/healthz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not answer ${url}/healthz within 30 s: ${errorLog()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // SIGQUIT: nginx's graceful stop; its workers go with the master.
    child.kill('SIGQUIT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  return { url, child, stop, errorLog };
}
